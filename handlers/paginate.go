package handlers

import (
	"encoding/base64"
	"encoding/json"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// A cursor is opaque to clients: base64url of a small JSON position, so
// it can grow fields without breaking old cursors' shape.
type position struct {
	Source int    `json:"s,omitempty"` // resources/list: 0 = static, n = source n-1
	Offset int    `json:"o,omitempty"`
	Inner  string `json:"c,omitempty"` // a resource source's own cursor
}

func encodeCursor(p position) string {
	b, _ := json.Marshal(p)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(c string) (position, error) {
	var p position
	if c == "" {
		return p, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil || p.Offset < 0 || p.Source < 0 {
		return p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor %q; pass a nextCursor from an earlier page", c)
	}
	return p, nil
}

// paginate returns the page of items at cursor and the cursor of the next.
func paginate[T any](items []T, cursor string, size int) ([]T, string, error) {
	p, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if p.Source != 0 || p.Inner != "" || p.Offset > len(items) {
		return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: cursor %q is out of range; the list may have changed, start again without a cursor", cursor)
	}
	if size <= 0 {
		size = len(items)
	}
	end := p.Offset + min(size, len(items)-p.Offset) // no overflow for huge page sizes
	next := ""
	if end < len(items) {
		next = encodeCursor(position{Offset: end})
	}
	return items[p.Offset:end], next, nil
}

func listResources(s Server, params json.RawMessage) Outcome {
	var p mcp.PaginatedParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	pos, err := decodeCursor(p.Cursor)
	if err != nil {
		return Failed(err)
	}
	sources := s.ResourceSources()
	if pos.Source > len(sources) {
		return invalidParams("Invalid params: cursor %q is out of range; start again without a cursor", p.Cursor)
	}
	res := &mcp.ListResourcesResult{Resources: []mcp.Resource{}}
	if pos.Source == 0 {
		static := s.Resources()
		if pos.Offset > len(static) {
			return invalidParams("Invalid params: cursor %q is out of range; start again without a cursor", p.Cursor)
		}
		end := len(static)
		if size := s.PageSize(); size > 0 {
			end = pos.Offset + min(size, len(static)-pos.Offset)
		}
		for _, r := range static[pos.Offset:end] {
			res.Resources = append(res.Resources, *r)
		}
		switch {
		case end < len(static):
			res.NextCursor = encodeCursor(position{Offset: end})
		case len(sources) > 0:
			res.NextCursor = encodeCursor(position{Source: 1})
		}
		return Answer(res)
	}
	page, next, err := sources[pos.Source-1](pos.Inner)
	if err != nil {
		return Failed(err)
	}
	res.Resources = append(res.Resources, page...)
	switch {
	case next != "":
		res.NextCursor = encodeCursor(position{Source: pos.Source, Inner: next})
	case pos.Source < len(sources):
		res.NextCursor = encodeCursor(position{Source: pos.Source + 1})
	}
	return Answer(res)
}
