package openapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/specter-mcp/specter/mcp"
)

// excerptSize bounds the part of an error response's body an isError
// result quotes.
const excerptSize = 1024

// response is an HTTP response read whole (and bounded).
type response struct {
	status      int
	contentType string
	body        []byte
}

// toolResult maps a response to a tool result: a JSON body becomes its
// text and, when it is an object, structuredContent; text stays text;
// images and audio become image and audio content; anything else an
// embedded blob. A 4xx or 5xx status becomes an isError result naming the
// status and quoting the start of the body, so that the model can correct
// its call.
func (r *response) toolResult(uri string) *mcp.CallToolResult {
	mt, _, _ := mime.ParseMediaType(r.contentType)
	mt = strings.ToLower(mt)
	if r.status >= 400 {
		msg := fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status))
		if ex := excerpt(r.body); ex != "" {
			msg += ": " + ex
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(msg)}, IsError: true}
	}
	res := &mcp.CallToolResult{}
	switch {
	case len(r.body) == 0:
		res.Content = []mcp.Content{mcp.Text(fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status)))}
	case isJSON(mt) || mt == "" && jsonObject(r.body):
		res.Content = []mcp.Content{mcp.Text(string(r.body))}
		if jsonObject(r.body) && json.Valid(r.body) {
			res.StructuredContent = r.body
		}
	case strings.HasPrefix(mt, "text/") || isTextual(mt) || mt == "" && utf8.Valid(r.body):
		res.Content = []mcp.Content{mcp.Text(string(r.body))}
	case strings.HasPrefix(mt, "image/"):
		res.Content = []mcp.Content{mcp.Image(base64.StdEncoding.EncodeToString(r.body), mt)}
	case strings.HasPrefix(mt, "audio/"):
		res.Content = []mcp.Content{mcp.Audio(base64.StdEncoding.EncodeToString(r.body), mt)}
	default:
		res.Content = []mcp.Content{mcp.Embed(mcp.BlobResource(uri, orDefault(mt, "application/octet-stream"), base64.StdEncoding.EncodeToString(r.body)))}
	}
	return res
}

// resourceContents maps a successful response to a resource's contents.
func (r *response) resourceContents(uri string) mcp.ResourceContents {
	mt, _, _ := mime.ParseMediaType(r.contentType)
	mt = strings.ToLower(mt)
	if isJSON(mt) || strings.HasPrefix(mt, "text/") || isTextual(mt) || mt == "" && utf8.Valid(r.body) {
		return mcp.TextResource(uri, orDefault(mt, "text/plain"), string(r.body))
	}
	return mcp.BlobResource(uri, orDefault(mt, "application/octet-stream"), base64.StdEncoding.EncodeToString(r.body))
}

func isTextual(mt string) bool {
	return mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/yaml" ||
		mt == "application/x-www-form-urlencoded" || mt == "application/javascript"
}

func jsonObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// excerpt is the start of a body as text, cut at a rune boundary.
func excerpt(b []byte) string {
	if !utf8.Valid(b) {
		return fmt.Sprintf("(%d bytes)", len(b))
	}
	s := strings.TrimSpace(string(b))
	if len(s) <= excerptSize {
		return s
	}
	cut := excerptSize
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
