package integration

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
)

// heapAlloc returns the live heap after collecting.
func heapAlloc() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The attack of issue 9 item 1: a user opens a session with the
// elicitation capability, sends 25 tools/call of a tool that asks it a
// question, each carrying an extra 4 MiB, and hangs up without answering.
// While the handlers wait, the server must not keep the bodies; once the
// input timeout passes, the handlers' goroutines end and the session
// idles out; and meanwhile other users still get sessions, even once the
// attacker has opened as many as its cap allows.
func TestPendingRequestsHoldNoBody(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 25 bodies of 4 MiB twice and waits for the input timeout")
	}
	const (
		calls        = 25
		inputTimeout = 10 * time.Second // longer than it takes to read and parse the bodies on a slow machine
	)
	pad := 4<<20 - 1024 // the body stays under MaxBodyBytes
	if raceEnabled {
		pad = 256 << 10 // the race detector parses slowly
	}
	// What the waiting handlers may keep: far below the bodies (the server
	// kept 210 MB of 100 MiB of bodies, 19 MB of 6.25 MiB under -race).
	const limit = 4 << 20
	for _, tc := range []struct {
		name string
		body func(id int, padding string) string
	}{
		{"a member of params", func(id int, padding string) string {
			return `{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"method":"tools/call","params":{"name":"ask","arguments":{},"padding":"` + padding + `"}}`
		}},
		{"a member of the message", func(id int, padding string) string {
			return `{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"method":"tools/call","params":{"name":"ask","arguments":{}},"padding":"` + padding + `"}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var waiting, ended atomic.Int32
			r := specter.NewRouter("pending", "1.0.0", quiet, specter.InputTimeout(inputTimeout),
				specter.SessionTimeout(3*time.Second), specter.MaxSessions(40), specter.MaxSessionsPerPrincipal(30))
			r.Connect(func(c *specter.Context) error {
				c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
				return nil
			})
			r.Tool("ask", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
				waiting.Add(1)
				defer ended.Add(1)
				defer waiting.Add(-1)
				_, _, err := specter.Elicit[struct {
					Name string `json:"name"`
				}](c, "Your name?")
				return specter.Error(err)
			}, specter.Description("Ask the user's name"))
			srv := httptest.NewServer(r.Handler())
			defer srv.Close()
			defer r.Shutdown(context.Background())
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()

			goroutines := runtime.NumGoroutine()
			mallory := quotaClient(srv, "X-User", "mallory")
			mallory.HTTP = client
			mallory.Capabilities.Elicitation = &mcp.ElicitationCapability{}
			bodies := make([][]byte, calls)
			before := heapAlloc()
			padding := strings.Repeat("x", pad)
			for i := range bodies {
				bodies[i] = []byte(tc.body(i+1, padding))
			}
			padding = ""
			// Initialized last: the session's idle timeout is short.
			if _, err := mallory.Initialize(ctx(t), "2025-11-25"); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			var wg sync.WaitGroup
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// The question arrives; the client hangs up, never
					// answering.
					req, _ := mallory.NewRequest(ctx(t), http.MethodPost, bodies[i])
					res, err := client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = res.Body.Read(make([]byte, 1))
					res.Body.Close()
				}()
			}
			// Reading and parsing the bodies takes long on a loaded
			// machine, the more so under -race: the measure needs every
			// handler waiting at once, which fails only if one gave up
			// (its input timeout) before the last began.
			waitUntil(t, "every handler waits", func() bool {
				if n := ended.Load(); n > 0 {
					t.Fatalf("%d handlers gave up before all %d waited; raise inputTimeout", n, calls)
				}
				return waiting.Load() == calls
			})
			wg.Wait()
			bodies = nil
			during := heapAlloc()
			if waiting.Load() != calls {
				t.Fatalf("only %d of %d handlers still wait; raise inputTimeout", waiting.Load(), calls)
			}
			grown := int64(during) - int64(before)
			t.Logf("%d handlers waiting on %d-byte bodies: heap grew by %d bytes", calls, len(tc.body(0, strings.Repeat("x", pad))), grown)
			if grown > limit {
				t.Errorf("heap grew by %d bytes while %d handlers wait; want under %d", grown, calls, limit)
			}

			// Others still get sessions, even once the attacker holds
			// as many as it may.
			for {
				if resp := initialize(t, mallory); resp.Status != http.StatusOK {
					wantRefused(t, "the attacker's sessions beyond its cap", resp.Status, resp.Error, "30 sessions")
					break
				}
			}
			bob := quotaClient(srv, "X-User", "bob")
			if resp := initialize(t, bob); resp.Status != http.StatusOK {
				t.Fatalf("bob's initialize while the attack runs: HTTP %d %s", resp.Status, resp.Body)
			}

			eventually(t, "the handlers give up after the input timeout", func() bool { return waiting.Load() == 0 })
			eventually(t, "every session idles out", func() bool { return r.Sessions() == 0 })
			client.CloseIdleConnections()
			srv.Client().CloseIdleConnections()
			eventually(t, "goroutines return to their baseline", func() bool { return runtime.NumGoroutine() <= goroutines })
		})
	}
}
