package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// pngBytes is the start of a PNG file: its signature and IHDR chunk.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func TestResourcesReturnFilesWithDetectedTypes(t *testing.T) {
	docs := fstest.MapFS{
		"notes.txt": {Data: []byte("plain notes\n")},
		"logo.png":  {Data: pngBytes},
		"data.json": {Data: []byte(`{"a":1}`)},
		"page.html": {Data: []byte("<!DOCTYPE html><html><body>hi</body></html>")},
	}
	osPath := filepath.Join(t.TempDir(), "pixel.png")
	if err := os.WriteFile(osPath, pngBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reported []string
	r := specter.NewRouter("t", "1", quiet, specter.MaxResourceFile(1000), specter.OnError(func(_ context.Context, err error, _ *specter.Request) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err.Error())
	}))
	r.Resource("app://docs/{name}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(specter.FSFile(docs, p.String("name")))
	}, specter.Description("Docs"))
	r.Resource("app://fsfile", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		f, err := docs.Open("logo.png")
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(f)
	}, specter.Description("An fs.File"))
	r.Resource("app://osfile", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		f, err := os.Open(osPath)
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(f)
	}, specter.Description("An *os.File"))
	r.Resource("app://reader", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(strings.NewReader("hello"))
	}, specter.Description("A reader"), specter.MIMEType("text/markdown"), specter.Size(5),
		specter.ResourceAnnotations(mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}, LastModified: "2026-01-02T03:04:05Z"}))
	r.Resource("app://big", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(bytes.NewReader(make([]byte, 1001)))
	}, specter.Description("Too big"))

	for _, ec := range bothEras(t, r) {
		t.Run(ec.name, func(t *testing.T) {
			for _, tc := range []struct {
				uri, mime, text string
				blob            []byte
			}{
				{"app://docs/notes.txt", "text/plain; charset=utf-8", "plain notes\n", nil},
				{"app://docs/data.json", "application/json", `{"a":1}`, nil},
				{"app://docs/page.html", "text/html; charset=utf-8", "<!DOCTYPE html><html><body>hi</body></html>", nil},
				{"app://docs/logo.png", "image/png", "", pngBytes},
				{"app://fsfile", "image/png", "", pngBytes},
				{"app://osfile", "image/png", "", pngBytes},
				{"app://reader", "text/markdown", "hello", nil},
			} {
				res, _, err := ec.c.ReadResource(ctx(t), tc.uri)
				if err != nil {
					t.Fatalf("%s: %v", tc.uri, err)
				}
				c := res.Contents[0]
				if c.URI != tc.uri || c.MIMEType != tc.mime {
					t.Errorf("%s: uri %q mimeType %q, want %q", tc.uri, c.URI, c.MIMEType, tc.mime)
				}
				if tc.blob != nil {
					got, _ := base64.StdEncoding.DecodeString(deref(c.Blob))
					if !bytes.Equal(got, tc.blob) || c.Text != nil {
						t.Errorf("%s: blob %q text %q", tc.uri, deref(c.Blob), deref(c.Text))
					}
				} else if deref(c.Text) != tc.text || c.Blob != nil {
					t.Errorf("%s: text %q blob %q, want text %q", tc.uri, deref(c.Text), deref(c.Blob), tc.text)
				}
			}
			_, _, err := ec.c.ReadResource(ctx(t), "app://big")
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
				t.Errorf("too big: %v", err)
			}
			mu.Lock()
			if len(reported) == 0 || !strings.Contains(reported[len(reported)-1], "app://big: the file is larger than MaxResourceFile (1000 bytes)") {
				t.Errorf("reported %q", reported)
			}
			mu.Unlock()
			_, _, err = ec.c.ReadResource(ctx(t), "app://docs/missing.txt")
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
				t.Errorf("missing file: %v", err)
			}

			list, err := ec.c.ListResources(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, res := range list {
				if res.URI == "app://reader" {
					found = true
					if res.Size == nil || *res.Size != 5 || res.Annotations == nil || res.Annotations.LastModified != "2026-01-02T03:04:05Z" ||
						len(res.Annotations.Audience) != 1 || res.Annotations.Audience[0] != mcp.RoleUser {
						t.Errorf("app://reader listed as %+v", res)
					}
				}
			}
			if !found {
				t.Error("app://reader is not listed")
			}
		})
	}
}

func TestTemplateVariablesArriveTyped(t *testing.T) {
	var mu sync.Mutex
	var subscribed []string
	r := specter.NewRouter("t", "1", quiet, specter.OnSubscribe(func(_ *specter.Context, uri string, p specter.Params) error {
		mu.Lock()
		defer mu.Unlock()
		id, _ := p.Get("id")
		subscribed = append(subscribed, fmt.Sprintf("%s %s %T %v", uri, p.String("org"), id, id))
		return nil
	}))
	r.Resource("app://orgs/{org}/items/{id}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		id, _ := p.Get("id")
		return specter.Reply(fmt.Sprintf("%s %T %d %v", p.String("org"), id, p.Int("id"), p.Bool("archived")))
	}, specter.Description("An item"), params.Integer("id", params.Validate("min=1")))
	r.Resource("app://flags/{on}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(fmt.Sprint(p.Bool("on")))
	}, specter.Description("A flag"), params.Boolean("on"))

	for _, ec := range bothEras(t, r) {
		t.Run(ec.name, func(t *testing.T) {
			for uri, want := range map[string]string{
				"app://orgs/acme/items/42": "acme int64 42 false",
				"app://flags/true":         "true",
			} {
				res, _, err := ec.c.ReadResource(ctx(t), uri)
				if err != nil || deref(res.Contents[0].Text) != want {
					t.Errorf("%s: %+v %v, want %q", uri, res, err, want)
				}
			}
			for uri, detail := range map[string]string{
				"app://orgs/acme/items/abc": `"id" must be an integer, got string`,
				"app://orgs/acme/items/0":   `"id"`,
				"app://flags/yes":           `"on" must be a boolean`,
			} {
				_, _, err := ec.c.ReadResource(ctx(t), uri)
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, detail) {
					t.Errorf("%s: %v, want -32602 with %q", uri, err, detail)
				}
			}
		})
	}

	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	if resp, err := c.Call(ctx(t), "resources/subscribe", map[string]string{"uri": "app://orgs/acme/items/7"}); err != nil || resp.Error != nil {
		t.Fatalf("subscribe: %+v %v", resp, err)
	}
	if resp, err := c.Call(ctx(t), "resources/subscribe", map[string]string{"uri": "app://orgs/acme/items/x"}); err != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("subscribe to a bad id: %+v %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(subscribed) != 1 || subscribed[0] != "app://orgs/acme/items/7 acme int64 7" {
		t.Errorf("the hook saw %q", subscribed)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
