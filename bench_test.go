package specter_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// benchRouter has one tool with a validated param, as a typical tool.
func benchRouter() *specter.Router {
	r := specter.NewRouter("bench", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name") + "!")
	}, specter.Description("Greet someone"),
		params.String("name", params.Required(), params.Validate("min=1,max=64")))
	return r
}

// replay is one HTTP request to a handler, built once and served again
// and again into one recorder: what it measures is the handler's work.
type replay struct {
	h    http.Handler
	req  *http.Request
	body []byte
	rd   *bytes.Reader
	rec  *httptest.ResponseRecorder
	hdr  http.Header
	out  *bytes.Buffer
}

func newReplay(h http.Handler, body []byte, header http.Header) *replay {
	p := &replay{h: h, body: body, rd: bytes.NewReader(body), hdr: http.Header{}, out: new(bytes.Buffer), rec: httptest.NewRecorder()}
	p.req = httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	p.req.Body = io.NopCloser(p.rd)
	p.req.ContentLength = int64(len(body))
	p.req.Header = header
	return p
}

// serve serves the request and returns the recorder.
func (p *replay) serve() *httptest.ResponseRecorder {
	p.rd.Reset(p.body)
	clear(p.hdr)
	p.out.Reset()
	//lint:ignore SA1019 the recorder's header map is set to reuse one map across calls, so the benchmark counts the router's allocations only
	*p.rec = httptest.ResponseRecorder{Code: http.StatusOK, HeaderMap: p.hdr, Body: p.out}
	p.h.ServeHTTP(p.rec, p.req)
	return p.rec
}

// benchCallBody is the tools/call every benchmark sends.
const benchCallBody = `"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}`

var benchWant = []byte(`"text":"Hello, Ada!"`)

// sessionCall opens a session on h and returns its tools/call as a replay.
func sessionCall(tb testing.TB, h http.Handler) *replay {
	tb.Helper()
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	init := newReplay(h, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`), header.Clone())
	rec := init.serve()
	id := rec.Header().Get(specter.HeaderSessionID)
	if rec.Code != http.StatusOK || id == "" {
		tb.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	header.Set(specter.HeaderSessionID, id)
	header.Set(specter.HeaderProtocolVersion, mcp.Version20251125)
	if rec := newReplay(h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), header.Clone()).serve(); rec.Code != http.StatusAccepted {
		tb.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body)
	}
	return newReplay(h, []byte(`{"jsonrpc":"2.0","id":2,`+benchCallBody+`}}`), header)
}

// statelessCall returns a 2026-07-28 tools/call to h as a replay.
func statelessCall(h http.Handler) *replay {
	body := `{"jsonrpc":"2.0","id":2,` + benchCallBody + `,"_meta":{` +
		strconv.Quote(mcp.MetaProtocolVersion) + `:"2026-07-28",` +
		strconv.Quote(mcp.MetaClientCapabilities) + `:{},` +
		strconv.Quote(mcp.MetaClientInfo) + `:{"name":"bench","version":"1.0.0"}}}}`
	return newReplay(h, []byte(body), http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {mcp.Version20260728},
		"Mcp-Method":           {"tools/call"},
		"Mcp-Name":             {"greet"},
	})
}

// benchEras are the wires a tools/call is measured on.
var benchEras = []struct {
	name string
	call func(testing.TB, http.Handler) *replay
}{
	{mcp.Version20251125, sessionCall},
	{mcp.Version20260728, func(_ testing.TB, h http.Handler) *replay { return statelessCall(h) }},
}

// eachEra runs bench once per era, each with a fresh router; open
// prepares a tools/call to it (a session of its own in the session era)
// and checks its answer once.
func eachEra(b *testing.B, bench func(b *testing.B, open func() *replay)) {
	for _, era := range benchEras {
		b.Run(era.name, func(b *testing.B) {
			r := benchRouter()
			defer shutdown(b, r)
			bench(b, func() *replay {
				call := era.call(b, r.Handler())
				if rec := call.serve(); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), benchWant) {
					b.Fatalf("unexpected answer %d %s", rec.Code, rec.Body)
				}
				return call
			})
		})
	}
}

// BenchmarkServeToolsCall measures the server's side of one tools/call in
// process, in a session and on the 2026-07-28 wire: Router.Handler()
// answering into a recorder, with the request built once, outside the
// timed part. Allocations are the router's own, and the recorder's copy
// of the headers (3).
func BenchmarkServeToolsCall(b *testing.B) {
	eachEra(b, func(b *testing.B, open func() *replay) {
		call := open()
		b.ReportAllocs()
		for b.Loop() {
			if rec := call.serve(); rec.Code != http.StatusOK {
				b.Fatalf("unexpected answer %d %s", rec.Code, rec.Body)
			}
		}
	})
}

// BenchmarkServeToolsCallParallel is BenchmarkServeToolsCall from
// GOMAXPROCS goroutines at once, each with its own session. Run it with
// -cpu 1,2,4,8 and compare cpu-ns/op, the process's CPU time per call: it
// stays flat as -cpu grows unless calls contend, and the mutex and block
// profiles (-mutexprofile, -blockprofile, which record every event) say
// where.
func BenchmarkServeToolsCallParallel(b *testing.B) {
	eachEra(b, func(b *testing.B, open func() *replay) {
		calls := make(chan *replay, runtime.GOMAXPROCS(0))
		for range cap(calls) {
			calls <- open()
		}
		var failed atomic.Bool
		b.ReportAllocs()
		b.ResetTimer()
		cpu, measured := cpuTime()
		b.RunParallel(func(pb *testing.PB) {
			call := <-calls
			for pb.Next() {
				if rec := call.serve(); rec.Code != http.StatusOK && !failed.Swap(true) {
					b.Errorf("unexpected answer %d %s", rec.Code, rec.Body)
				}
			}
		})
		if end, ok := cpuTime(); measured && ok {
			b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
		}
	})
}
