package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// benchRouter has one tool with a validated param, as a typical tool.
func benchRouter(mw []specter.Middleware, opts ...specter.RouterOption) *specter.Router {
	r := specter.NewRouter("bench", "1.0.0", append([]specter.RouterOption{quiet}, opts...)...)
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
func BenchmarkToolsCall(b *testing.B) { benchToolsCall(b, benchRouter(nil)) }

// BenchmarkToolsCallMiddleware is BenchmarkToolsCall through one
// middleware that passes the call on.
func BenchmarkToolsCallMiddleware(b *testing.B) {
	benchToolsCall(b, benchRouter([]specter.Middleware{func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result { return next(req, c) }
	}}))
}

// BenchmarkToolsCallRedis is BenchmarkToolsCall with the session on a
// real Redis: the same work plus the round trip that admits each request
// (see TestRedisRoundTripsPerCall).
func BenchmarkToolsCallRedis(b *testing.B) {
	rs := redistest.Start(b)
	bp, err := redisbp.New(context.Background(), rs.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer bp.Close()
	benchToolsCall(b, benchRouter(nil, specter.Backplane(bp)))
}

func benchToolsCall(b *testing.B, r *specter.Router) {
	_, c := mcptest.NewServer(b, r.Handler(), "/mcp")
	defer r.Shutdown(context.Background())
	call, err := newBenchCall(c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCallStateless is BenchmarkToolsCall on the 2026-07-28 wire:
// no session; each request carries its _meta and the headers that mirror
// it.
func BenchmarkToolsCallStateless(b *testing.B) {
	r := benchRouter(nil)
	srv, _ := mcptest.NewServer(b, r.Handler(), "/mcp")
	defer r.Shutdown(context.Background())
	mr := mcptest.NewStatelessClient(srv.URL+"/mcp").Request("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}})
	body, err := mr.Body()
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header = mr.Header.Clone()
	want := []byte(`"text":"Hello, Ada!"`)
	client := srv.Client()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		hr, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(hr.Body)
		hr.Body.Close()
		if !bytes.Contains(got, want) {
			b.Fatalf("unexpected answer %s", got)
		}
	}
}

// BenchmarkToolsCallParallel is BenchmarkToolsCall from 16 clients at
// once, each in its own session: throughput rather than latency.
func BenchmarkToolsCallParallel(b *testing.B) { benchToolsCallParallel(b, benchRouter(nil)) }

// BenchmarkToolsCallParallelRedis is BenchmarkToolsCallParallel with the
// sessions on a real Redis.
func BenchmarkToolsCallParallelRedis(b *testing.B) {
	rs := redistest.Start(b)
	bp, err := redisbp.New(context.Background(), rs.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer bp.Close()
	benchToolsCallParallel(b, benchRouter(nil, specter.Backplane(bp)))
}

func benchToolsCallParallel(b *testing.B, r *specter.Router) {
	srv, _ := mcptest.NewServer(b, r.Handler(), "/mcp")
	defer r.Shutdown(context.Background())
	srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	b.SetParallelism(8) // 16 clients on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := mcptest.NewClient(srv.URL + "/mcp")
		c.HTTP = srv.Client()
		call, err := newBenchCall(c)
		if err != nil {
			b.Error(err) // not Fatal: this is not the benchmark's goroutine
			return
		}
		for pb.Next() {
			if err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// newBenchCall opens a session for c and returns a function making one
// tools/call in it and checking the answer.
func newBenchCall(c *mcptest.Client) (func() error, error) {
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		return nil, err
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	want := []byte(`"text":"Hello, Ada!"`)
	req, err := c.NewRequest(context.Background(), http.MethodPost, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	buf := make([]byte, 0, 512)
	return func() error {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		hr, err := c.HTTP.Do(req)
		if err != nil {
			return err
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
			return fmt.Errorf("unexpected answer %s", buf)
		}
		return nil
	}, nil
}
