package methods

import (
	"encoding/base64"
	"encoding/json"
	"math"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// A cursor is opaque to clients: base64url of a small JSON position, so
// it can grow fields without breaking old cursors' shape.
type position struct {
	Source int    `json:"s,omitempty"` // resources/list: 0 = static, n = source n-1
	Offset int    `json:"o,omitempty"` // items already listed (of the source's page at Inner)
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

// maxSourcePages bounds the pages of resource sources one resources/list
// page asks for, so that sources answering empty pages cannot keep one
// request busy: the page then ends early, with a cursor to go on.
const maxSourcePages = 32

// listResources answers resources/list: the static resources, then each
// source's pages in order. The static resources and sources that list
// everything at once fill every page up to the page size; a page that ends
// inside such a source's items resumes there (its cursor holds the
// source's cursor and how many of its items were listed). A source that
// pages by itself has each of its pages sent whole, as the last items of a
// list page, on a page of its own when it does not fit after the items
// before it: its page size and cursors are the ones clients follow.
func listResources(s Server, params json.RawMessage) Outcome {
	var p mcp.PaginatedParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	pos, err := decodeCursor(p.Cursor)
	if err != nil {
		return Failed(err)
	}
	outOfRange := func() Outcome {
		return invalidParams("Invalid params: cursor %q is out of range; start again without a cursor", p.Cursor)
	}
	sources := s.ResourceSources()
	if pos.Source > len(sources) {
		return outOfRange()
	}
	room := s.PageSize()
	if room <= 0 {
		room = math.MaxInt
	}
	res := &mcp.ListResourcesResult{Resources: []mcp.Resource{}}
	take := func(items []mcp.Resource) int {
		n := min(room, len(items))
		res.Resources = append(res.Resources, items[:n]...)
		room -= n
		return n
	}
	if pos.Source == 0 {
		static := s.Resources()
		if pos.Offset > len(static) {
			return outOfRange()
		}
		for _, r := range static[pos.Offset : pos.Offset+min(room, len(static)-pos.Offset)] {
			res.Resources = append(res.Resources, *r)
		}
		room -= len(res.Resources)
		if end := pos.Offset + len(res.Resources); end < len(static) {
			res.NextCursor = encodeCursor(position{Offset: end})
			return Answer(res)
		}
		pos = position{Source: 1}
	}
	for calls := 0; pos.Source <= len(sources); calls++ {
		if room == 0 || calls == maxSourcePages {
			res.NextCursor = encodeCursor(pos)
			break
		}
		page, next, paged, err := sources[pos.Source-1](pos.Inner)
		if err != nil {
			return Failed(err)
		}
		if pos.Offset > len(page) {
			return outOfRange()
		}
		page = page[pos.Offset:]
		switch {
		case paged && len(res.Resources) > 0 && len(page) > room:
			// The source's page does not fit after what this page holds:
			// the next page starts with it.
			res.NextCursor = encodeCursor(pos)
			return Answer(res)
		case paged:
			res.Resources = append(res.Resources, page...) // whole, even past the page size
		default:
			if n := take(page); n < len(page) {
				pos.Offset += n // the page is full inside this source's page
				continue
			}
		}
		pos = position{Source: pos.Source, Inner: next}
		if next == "" {
			pos = position{Source: pos.Source + 1}
		}
		if paged && len(page) > 0 {
			// The source's page ends this one, with the source's cursor.
			if pos.Source <= len(sources) {
				res.NextCursor = encodeCursor(pos)
			}
			break
		}
	}
	return Answer(res)
}
