package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/openapi"
	"github.com/specter-mcp/specter/principal"
)

// generate loads GitHub's REST API description and declares its tools on
// a new router: the work "load a document and generate its tools" names.
func generate(tb testing.TB, data []byte) *specter.Router {
	doc, err := openapi.Parse(data)
	if err != nil {
		tb.Fatal(err)
	}
	r := specter.NewRouter("github", "1", specter.Logger(zerolog.Nop()))
	if err := openapi.Mount(r, doc, openapi.Options{BaseURL: "https://api.github.com"}); err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkGitHubGenerate measures loading GitHub's REST API description
// (13 MB, 1,223 operations) and declaring its tools. Run it with -cpu 2
// for the 2-core figure.
func BenchmarkGitHubGenerate(b *testing.B) {
	data := readDoc(b, githubDoc)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		generate(b, data)
	}
	// On a shared machine the wall time counts others' work too; the
	// process's CPU time (all threads, the collector's included) does not.
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// maxGenerateHeap bounds the heap of loading GitHub's description and
// generating its tools.
const maxGenerateHeap = 300 << 20

// TestGitHubGenerateHeap runs the generation in a fresh process and
// checks the most heap it held (HeapSys less what it returned: the Go
// heap's footprint, which does not shrink in between) and what stays
// live afterwards.
func TestGitHubGenerateHeap(t *testing.T) {
	if os.Getenv("OPENAPI_HEAP_CHILD") == "1" {
		data := readDoc(t, githubDoc)
		r := generate(t, data)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak := m.HeapSys
		runtime.GC()
		runtime.ReadMemStats(&m)
		fmt.Printf("heap peak=%d live=%d\n", peak, m.HeapAlloc)
		runtime.KeepAlive(r)
		return
	}
	if testing.Short() {
		t.Skip("loads GitHub's description in a child process")
	}
	readDoc(t, githubDoc)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGitHubGenerateHeap$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OPENAPI_HEAP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var peak, live uint64
	i := bytes.Index(out, []byte("heap peak="))
	if i < 0 {
		t.Fatalf("child printed no figures:\n%s", out)
	}
	if _, err := fmt.Sscanf(string(out[i:]), "heap peak=%d live=%d", &peak, &live); err != nil {
		t.Fatal(err)
	}
	t.Logf("GitHub: heap peak %d MiB, live after %d MiB", peak>>20, live>>20)
	if peak > maxGenerateHeap {
		t.Errorf("heap peaked at %d MiB, over %d MiB", peak>>20, maxGenerateHeap>>20)
	}
}

// statelessRequest is a 2026-07-28 request to a router's handler.
func statelessRequest(method, name, params string) ([]byte, http.Header) {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `"_meta":{` +
		strconv.Quote(mcp.MetaProtocolVersion) + `:"2026-07-28",` + strconv.Quote(mcp.MetaClientCapabilities) + `:{},` +
		strconv.Quote(mcp.MetaClientInfo) + `:{"name":"bench","version":"1"}}}}`
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {mcp.Version20260728}, "Mcp-Method": {method}}
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return []byte(body), h
}

// serveList serves tools/list pages in process until the last one and
// returns how many tools it saw.
func serveList(tb testing.TB, h http.Handler) int {
	n, cursor := 0, ""
	for {
		params := ""
		if cursor != "" {
			params = `"cursor":` + strconv.Quote(cursor) + `,`
		}
		body, hdr := statelessRequest("tools/list", "", params)
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", bytes.NewReader(body))
		req.Header = hdr
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var res struct {
			Result mcp.ListToolsResult `json:"result"`
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
			tb.Fatalf("tools/list: %d %.300s", rec.Code, rec.Body)
		}
		n += len(res.Result.Tools)
		if cursor = res.Result.NextCursor; cursor == "" {
			return n
		}
	}
}

// BenchmarkToolsList compares tools/list (every page) of the tools
// generated from GitHub's description with the same tools declared by
// hand (r.Tool with the same descriptions and schemas).
func BenchmarkToolsList(b *testing.B) {
	data := readDoc(b, githubDoc)
	doc, err := openapi.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	generated := generate(b, data)
	hand := specter.NewRouter("github", "1", specter.Logger(zerolog.Nop()))
	for _, op := range doc.Operations {
		t := op.Tool()
		opts := []specter.Option{specter.Description(t.Description), specter.Title(t.Title), specter.InputSchema(t.InputSchema), specter.OpenWorld(true)}
		if t.OutputSchema != nil {
			opts = append(opts, specter.OutputSchema(t.OutputSchema))
		}
		if *t.Annotations.OpenWorldHint && t.Annotations.ReadOnlyHint != nil {
			opts = append(opts, specter.ReadOnly())
		}
		if d := t.Annotations.DestructiveHint; d != nil {
			opts = append(opts, specter.Destructive(*d))
		}
		if t.Annotations.IdempotentHint != nil {
			opts = append(opts, specter.Idempotent())
		}
		hand.Tool(t.Name, func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("") }, opts...)
	}
	for name, r := range map[string]*specter.Router{"generated": generated, "hand-declared": hand} {
		b.Run(name, func(b *testing.B) {
			h := r.Handler()
			if n := serveList(b, h); n != len(doc.Operations) {
				b.Fatalf("listed %d tools, want %d", n, len(doc.Operations))
			}
			b.ReportAllocs()
			for b.Loop() {
				serveList(b, h)
			}
		})
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRouteCall compares a tools/call of an in-process route over
// real HTTP with a plain HTTP request to the same route, in CPU time per
// request (cpu-ns/op: the whole process, client included, so that both
// sides pay the same transport).
func BenchmarkRouteCall(b *testing.B) {
	e, _ := notesServer(b)
	srv := httptest.NewServer(e)
	defer srv.Close()
	client := srv.Client()
	body, hdr := statelessRequest("tools/call", "get_note", `"name":"get_note","arguments":{"id":3},`)
	for _, tc := range []struct {
		name string
		req  func() *http.Request
	}{
		{"plain-http", func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/notes/3", nil)
			req.Header.Set("X-User", "alice")
			return req
		}},
		{"mcp-tools-call", func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", bytes.NewReader(body))
			req.Header = hdr.Clone()
			req.Header.Set("X-User", "alice")
			return req
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			do := func() []byte {
				res, err := client.Do(tc.req())
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || !strings.Contains(string(out), `alice`) {
					b.Fatalf("%d %s", res.StatusCode, out)
				}
				return out
			}
			do()
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				do()
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// notesServer is the notes app with its GET /notes/{id} route mounted as
// a tool and its MCP endpoint at /mcp.
func notesServer(tb testing.TB) (*echo.Echo, *specter.Router) {
	e, _ := notesApp()
	doc, err := openapi.Parse([]byte(notesDoc))
	if err != nil {
		tb.Fatal(err)
	}
	r := specter.NewRouter("notes", "1", specter.Logger(zerolog.Nop()))
	if err := openapi.MountRoutes(r, e, doc, openapi.RouteOptions{Select: []openapi.Select{{Methods: []string{http.MethodGet}, Path: regexp.MustCompile(`^/notes/`)}}}); err != nil {
		tb.Fatal(err)
	}
	r.Mount(e.Group("/mcp", principalFromHeader))
	return e, r
}

// principalFromHeader is the benchmark's authentication: the caller is
// the X-User header's user.
func principalFromHeader(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := c.Request().Header.Get("X-User"); u != "" {
			req := c.Request()
			c.SetRequest(req.WithContext(principal.NewContext(req.Context(), &principal.Principal{ID: u})))
		}
		return next(c)
	}
}

// BenchmarkRouteCallServer is BenchmarkRouteCall without the network: the
// server's own work for a plain request (Echo serving the route into a
// recorder) and for a tools/call of it (the router's handler, which runs
// the route in process), requests built once.
func BenchmarkRouteCallServer(b *testing.B) {
	e, _ := notesServer(b)
	body, hdr := statelessRequest("tools/call", "get_note", `"name":"get_note","arguments":{"id":3},`)
	hdr.Set("X-User", "alice")
	for _, tc := range []struct {
		name   string
		method string
		target string
		body   []byte
		header http.Header
	}{
		{"plain", http.MethodGet, "/notes/3", nil, http.Header{"X-User": {"alice"}}},
		{"mcp-tools-call", http.MethodPost, "/mcp", body, hdr},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rd := bytes.NewReader(tc.body)
			serve := func() *httptest.ResponseRecorder {
				rd.Reset(tc.body)
				req := httptest.NewRequest(tc.method, "http://localhost"+tc.target, rd)
				req.Header = tc.header
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				return rec
			}
			if rec := serve(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "alice") {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
		})
	}
}
