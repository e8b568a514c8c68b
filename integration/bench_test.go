package integration

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// benchRouter has one tool with a validated param, as a typical tool.
func benchRouter(mw ...specter.Middleware) *specter.Router {
	r := specter.NewRouter("bench", "1.0.0", quiet)
	r.Use(mw...)
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name") + "!")
	}, specter.Description("Greet someone"),
		params.String("name", params.Required(), params.Validate("min=1,max=64")))
	return r
}

// BenchmarkToolsCall measures one tools/call through the whole stack: an
// httptest server, a keep-alive HTTP client, the session lookup, connect,
// params validation, the handler and the JSON answer. Allocations include
// the client's side of the exchange.
func BenchmarkToolsCall(b *testing.B) { benchToolsCall(b, benchRouter()) }

// BenchmarkToolsCallMiddleware is BenchmarkToolsCall through one
// middleware that passes the call on.
func BenchmarkToolsCallMiddleware(b *testing.B) {
	benchToolsCall(b, benchRouter(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result { return next(req, c) }
	}))
}

func benchToolsCall(b *testing.B, r *specter.Router) {
	_, c := mcptest.NewServer(b, r.Handler(), "/mcp")
	defer r.Shutdown(context.Background())
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	want := []byte(`"text":"Hello, Ada!"`)
	req, err := c.NewRequest(context.Background(), http.MethodPost, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		hr, err := c.HTTP.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		buf = buf[:0]
		for {
			n, err := hr.Body.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				break
			}
		}
		hr.Body.Close()
		if !bytes.Contains(buf, want) {
			b.Fatalf("unexpected answer %s", buf)
		}
	}
}
