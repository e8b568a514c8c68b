package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestMain runs the test binary as a server child when the harness under
// test starts one (it re-runs its own executable with -serve).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "-serve" {
		main()
		return
	}
	goleak.VerifyTestMain(m)
}

// TestEveryServerAnswers builds each server in process and sends it the
// harness's exact requests: a session, a session-era tools/call and, where
// the server speaks it, a 2026-07-28 tools/call.
func TestEveryServerAnswers(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			redisURL := ""
			switch {
			case s.cluster:
				redisURL = redistest.StartCluster(t).URL
			case s.redis:
				redisURL = redistest.Start(t).URL
			}
			h, release, err := s.build(redisURL)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer release()
			defer srv.Close()
			client := newHTTPClient(1)
			defer client.CloseIdleConnections()

			id, err := openSession(client, srv.URL+s.sessionPath, s.sessions)
			if err != nil {
				t.Fatal(err)
			}
			x, err := newExchange(client, srv.URL+s.sessionPath, sessionHeader(id), sessionCallBody, http.StatusOK, wantText)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.do(); err != nil {
				t.Fatalf("session-era tools/call: %v", err)
			}
			if s.statelessPath == "" {
				return
			}
			x, err = newExchange(client, srv.URL+s.statelessPath, statelessHeader(), statelessCallBody, http.StatusOK, wantText)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.do(); err != nil {
				t.Fatalf("2026-07-28 tools/call: %v", err)
			}
		})
	}
}

// TestExchangeRejectsWrongAnswers checks that a round stops on an answer
// that is not the greeting: an error status, a JSON-RPC error, a tool
// error, or other text.
func TestExchangeRejectsWrongAnswers(t *testing.T) {
	answers := map[string]struct {
		status int
		body   string
	}{
		"status":    {http.StatusBadRequest, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}`},
		"rpc error": {http.StatusOK, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Hello, Ada!"}}`},
		"isError":   {http.StatusOK, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"isError":true}}`},
		"text":      {http.StatusOK, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Hello, Bob!"}]}}`},
	}
	for name, a := range answers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(a.status)
				_, _ = io.WriteString(w, a.body)
			}))
			defer srv.Close()
			client := newHTTPClient(1)
			defer client.CloseIdleConnections()
			x, err := newExchange(client, srv.URL, statelessHeader(), statelessCallBody, http.StatusOK, wantText)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.do(); err == nil {
				t.Fatalf("answer %q was accepted", a.body)
			}
		})
	}
}

// TestRunPrintsTable runs the whole harness briefly, with every server in
// a child process, and checks that the table has a measured cell for
// every server and wire it serves.
func TestRunPrintsTable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per server")
	}
	var out, log bytes.Buffer
	o := options{rounds: 1, round: 100 * time.Millisecond, minCPU: 20 * time.Millisecond, concurrency: 2, sessions: 20,
		columns: []column{colSession, colStateless, colCreate}}
	if err := run(o, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	table := out.String()
	for _, s := range servers {
		var row string
		for line := range strings.Lines(table) {
			if strings.HasPrefix(line, "| "+s.label+" |") {
				row = line
			}
		}
		if row == "" {
			t.Fatalf("no row for %s in\n%s", s.name, table)
		}
		want := 3 // the three CPU columns
		if s.statelessPath == "" {
			want--
		}
		if got := strings.Count(row, "µs ("); got != want {
			t.Errorf("%s: %d measured CPU cells, want %d: %s", s.name, got, want, row)
		}
		if got := strings.Count(row, "Redis commands per request"); s.redis && got != want {
			t.Errorf("%s: %d cells with Redis commands per request, want %d: %s", s.name, got, want, row)
		}
		if got := strings.Count(row, "KiB"); s.sessions && got != 2 {
			t.Errorf("%s: %d memory cells, want 2: %s", s.name, got, row)
		}
	}
}

func TestSumCalls(t *testing.T) {
	stats := "# Commandstats\r\ncmdstat_evalsha:calls=300,usec=900,usec_per_call=3.00\r\n" +
		"cmdstat_info:calls=7,usec=70\r\ncmdstat_publish:calls=12,usec=24\r\n"
	if n := sumCalls(stats); n != 312 {
		t.Errorf("sumCalls = %d, want 312 (INFO left out)", n)
	}
}

func TestParseColumns(t *testing.T) {
	cols, err := parseColumns("stateless, session")
	if err != nil || len(cols) != 2 || cols[0] != colStateless || cols[1] != colSession {
		t.Errorf(`parseColumns("stateless, session") = %v, %v`, cols, err)
	}
	if _, err := parseColumns("session,latency"); err == nil || !strings.Contains(err.Error(), `"latency"`) {
		t.Errorf("an unknown column gave %v", err)
	}
}

// TestWorkersRotateSessions checks that with -client-sessions each
// session-era worker opens sessions of its own and calls them in turn, so
// that the calls spread over that many sessions (and a Cluster's slots).
func TestWorkersRotateSessions(t *testing.T) {
	s, _ := serverNamed("specter")
	h, release, err := s.build("")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var (
		mu    sync.Mutex
		calls = map[string]int{} // tools/call per session id
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); id != "" && r.Header.Get("Content-Length") == strconv.Itoa(len(sessionCallBody)) {
			mu.Lock()
			calls[id]++
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	client := newHTTPClient(2)
	defer client.CloseIdleConnections()

	c := &child{srv: s, addr: strings.TrimPrefix(srv.URL, "http://")}
	steps, err := workers(c, client, colSession, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		for range 6 {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(calls) != 6 {
		t.Fatalf("the calls went to %d sessions, want 2 workers × 3: %v", len(calls), calls)
	}
	for id, n := range calls {
		if n != 2 {
			t.Errorf("session %s got %d calls, want 2 (each worker's 6 calls in turn over its 3)", id, n)
		}
	}
}
