package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// hostile runs a hand-written MCP server for one test on loopback: every
// POSTed message is decoded and handed to h, which answers as the attack
// needs (handshake answers the handshake for it). GET and DELETE reach h
// with a nil message.
func hostile(t *testing.T, h func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h(w, r, nil)
			return
		}
		var m jsonrpc.Message
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h(w, r, &m)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// handshake answers what a hostile server answers like any other: the
// 2026-07-28 server/discover (with the tasks extension), a session-era
// initialize (session "s1"), and the client's notifications and responses
// (202). It reports whether m was one of those.
func handshake(w http.ResponseWriter, m *jsonrpc.Message) bool {
	switch {
	case m == nil:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case m.Method == mcp.MethodDiscover:
		reply(w, m.ID, map[string]any{
			"supportedVersions": []string{mcp.Version20260728},
			"capabilities":      map[string]any{"tools": map[string]any{}, "extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}},
			"serverInfo":        map[string]any{"name": "hostile", "version": "1.0.0"},
			"resultType":        mcp.ResultComplete,
		})
	case m.Method == mcp.MethodInitialize:
		w.Header().Set("Mcp-Session-Id", "s1")
		reply(w, m.ID, map[string]any{
			"protocolVersion": mcp.Version20251125,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile", "version": "1.0.0"},
		})
	case m.ID.IsZero() || m.Method == "":
		w.WriteHeader(http.StatusAccepted)
	default:
		return false
	}
	return true
}

// reply writes the JSON response to id with result.
func reply(w http.ResponseWriter, id jsonrpc.ID, result any) {
	b, _ := json.Marshal(result)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id, Result: b})
}

// TestSSEEventBound reads a response stream whose one event is far larger
// than the bound on events: the call fails with an error naming the bound,
// having allocated about the bound rather than the event. The bound is
// lowered to 1 MiB here; by default it is the 64 MiB of JSON answers and
// stdio lines.
func TestSSEEventBound(t *testing.T) {
	const event = 32 << 20
	url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if handshake(w, m) {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
		chunk := strings.Repeat("x", 64<<10)
		for range event / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client gave up, as it should
			}
		}
		io.WriteString(w, "\"}]}}\n\n")
	})
	tr := &client.HTTPTransport{URL: url}
	if got := client.EventLimit(tr); got != 64<<20 {
		t.Errorf("default event bound %d, want 64 MiB", got)
	}
	client.LimitEvents(tr, 1<<20)
	c := connect(t, tr, &client.Options{Version: mcp.Version20260728})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.CallTool(t.Context(), "big", nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("call: %v, want the event refused for its size", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MiB event against a 1 MiB bound: %.1f MiB allocated", event>>20, float64(alloc)/(1<<20))
	if alloc > 8<<20 {
		t.Errorf("reading a %d MiB event allocated %.1f MiB, want at most 8 MiB for a 1 MiB bound", event>>20, float64(alloc)/(1<<20))
	}
}

// taskServer is a hostile server whose tools/call becomes task "t1",
// polled at pollMs, and whose tasks/get answers with status(n) for the
// n-th poll (from 1): input_required asks for a sampling every time. It
// counts the polls and the cancellations.
type taskServer struct {
	url            string
	polls, cancels atomic.Int32
}

func newTaskServer(t *testing.T, pollMs int64, status func(n int32) string) *taskServer {
	s := &taskServer{}
	s.url = hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if handshake(w, m) {
			return
		}
		task := map[string]any{"resultType": mcp.ResultTask, "taskId": "t1", "status": mcp.TaskWorking, "pollIntervalMs": pollMs}
		switch m.Method {
		case mcp.MethodTasksGet:
			n := s.polls.Add(1)
			task["resultType"] = mcp.ResultComplete
			switch task["status"] = status(n); task["status"] {
			case mcp.TaskInputRequired:
				task["inputRequests"] = map[string]any{fmt.Sprint("q", n): map[string]any{
					"method": mcp.MethodSample,
					"params": map[string]any{"messages": []any{}, "maxTokens": 1},
				}}
			case mcp.TaskCompleted:
				task["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
			}
		case mcp.MethodTasksCancel:
			s.cancels.Add(1)
			task["status"] = mcp.TaskCancelled
		case mcp.MethodTasksUpdate:
			task = map[string]any{"resultType": mcp.ResultComplete}
		}
		reply(w, m.ID, task)
	})
	return s
}

// TestTaskInputRoundsBounded follows a task that asks for input at every
// poll: the sampling handler runs MaxInputRounds times, then the call
// fails and the task is cancelled.
func TestTaskInputRoundsBounded(t *testing.T) {
	srv := newTaskServer(t, 1, func(n int32) string {
		if n > 50 {
			return mcp.TaskCompleted
		}
		return mcp.TaskInputRequired
	})
	var sampled atomic.Int32
	c := connect(t, &client.HTTPTransport{URL: srv.url}, &client.Options{Version: mcp.Version20260728, Tasks: true,
		Sampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			sampled.Add(1)
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text("ok")}, Model: "m"}, nil
		},
	})
	client.SetPause(c, func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
	_, err := c.CallTool(t.Context(), "ask", nil)
	if err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("call: %v, want the rounds bound", err)
	}
	if n := sampled.Load(); n != 8 {
		t.Errorf("the sampling handler ran %d times, want 8 (MaxInputRounds)", n)
	}
	if srv.cancels.Load() != 1 {
		t.Errorf("%d tasks/cancel, want the task cancelled", srv.cancels.Load())
	}
}

// TestTaskPollPause pauses before every tasks/get, input rounds included,
// for the server's pollIntervalMs but never less than a floor.
func TestTaskPollPause(t *testing.T) {
	for _, tc := range []struct {
		pollMs int64
		want   time.Duration
	}{{0, time.Second}, {1, 100 * time.Millisecond}, {250, 250 * time.Millisecond}} {
		srv := newTaskServer(t, tc.pollMs, func(n int32) string {
			return []string{mcp.TaskWorking, mcp.TaskInputRequired, mcp.TaskWorking, mcp.TaskCompleted}[n-1]
		})
		c := connect(t, &client.HTTPTransport{URL: srv.url}, handlers(&client.Options{Version: mcp.Version20260728, Tasks: true}))
		var pauses []time.Duration
		client.SetPause(c, func(ctx context.Context, d time.Duration) error {
			pauses = append(pauses, d)
			return ctx.Err()
		})
		if _, err := c.CallTool(t.Context(), "slow", nil); err != nil {
			t.Fatal(err)
		}
		if want := slices.Repeat([]time.Duration{tc.want}, 4); !slices.Equal(pauses, want) {
			t.Errorf("pollIntervalMs %d: pauses %v before the %d polls, want %v", tc.pollMs, pauses, srv.polls.Load(), want)
		}
	}
}

// TestRedirectKeepsCredentialsHome follows a server's 307 to another
// origin (another port, or https to http): the static Authorization and
// API-key headers of HTTPTransport.Header and the session id stay behind,
// and a session id the other origin hands out is not taken up. Within the
// origin, they all go along.
func TestRedirectKeepsCredentialsHome(t *testing.T) {
	secret := http.Header{"Authorization": {"Bearer static"}, "X-Api-Key": {"k"}}
	type seen struct {
		mu      sync.Mutex
		headers []http.Header
	}
	record := func(s *seen, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
	}
	leaks := func(t *testing.T, s *seen) {
		t.Helper()
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.headers) == 0 {
			t.Fatal("the redirect was not followed")
		}
		for _, h := range s.headers {
			for _, k := range []string{"Authorization", "X-Api-Key", "Mcp-Session-Id"} {
				if v := h.Get(k); v != "" {
					t.Errorf("the other origin received %s: %s", k, v)
				}
			}
		}
	}
	// other is another origin: it answers as a server would, and hands
	// out a session id of its own.
	var elsewhere seen
	other := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		record(&elsewhere, r)
		w.Header().Set("Mcp-Session-Id", "planted")
		handshake(w, m)
	})

	// callHome calls a tool of a session-era server on its own origin,
	// which handles first what route takes, answers tools/call, and
	// records the tools/call requests that reach it; nothing may leak
	// to the other origin on the way.
	callHome := func(t *testing.T, route func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) bool) *seen {
		t.Helper()
		elsewhere = seen{}
		var home seen
		url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			switch {
			case m != nil && route(w, r, m):
			case m != nil && m.Method == mcp.MethodToolsCall:
				record(&home, r)
				reply(w, m.ID, map[string]any{"content": []any{}})
			default:
				handshake(w, m)
			}
		})
		c := connect(t, &client.HTTPTransport{URL: url + "/mcp", Header: secret}, &client.Options{Version: mcp.Version20251125})
		if _, err := c.CallTool(t.Context(), "x", nil); err != nil {
			t.Fatal(err)
		}
		leaks(t, &elsewhere)
		return &home
	}
	t.Run("another port, session era", func(t *testing.T) {
		home := callHome(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) bool {
			if m.Method != mcp.NotificationInitialized {
				return false
			}
			http.Redirect(w, r, other+"/mcp", http.StatusTemporaryRedirect)
			return true
		})
		if got := home.headers[0].Get("Mcp-Session-Id"); got != "s1" {
			t.Errorf("the server's own session is %q, want s1", got)
		}
	})
	t.Run("session renewal", func(t *testing.T) {
		// The server ends the session; the initialize that starts the
		// next one is sent to another origin, which must get no
		// credentials and give no session.
		var initializes, calls atomic.Int32
		home := callHome(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) bool {
			switch {
			case m.Method == mcp.MethodInitialize && initializes.Add(1) == 2:
				http.Redirect(w, r, other+"/mcp", http.StatusTemporaryRedirect)
			case m.Method == mcp.MethodToolsCall && calls.Add(1) == 1:
				http.NotFound(w, r) // the session is gone
			default:
				return false
			}
			return true
		})
		if got := home.headers[0].Get("Mcp-Session-Id"); got == "planted" {
			t.Errorf("the request after renewal carried the other origin's session %q", got)
		}
	})
	t.Run("404 from another origin", func(t *testing.T) {
		// A request redirected elsewhere, which answers 404, says nothing
		// of the server's session: it fails, and the session stays.
		var lost seen
		gone := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			record(&lost, r)
			http.NotFound(w, r)
		})
		var initializes atomic.Int32
		var home seen
		url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			switch {
			case m != nil && m.Method == mcp.MethodInitialize:
				initializes.Add(1)
				handshake(w, m)
			case m != nil && m.Method == mcp.MethodToolsCall && r.URL.Path == "/mcp":
				http.Redirect(w, r, gone+"/mcp", http.StatusTemporaryRedirect)
			case m != nil && m.Method == mcp.MethodToolsCall:
				record(&home, r)
				reply(w, m.ID, map[string]any{"content": []any{}})
			default:
				handshake(w, m)
			}
		})
		c := connect(t, &client.HTTPTransport{URL: url + "/mcp", Header: secret}, &client.Options{Version: mcp.Version20251125})
		_, err := c.CallTool(t.Context(), "x", nil)
		var he *mcp.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusNotFound {
			t.Errorf("call: %v, want the other origin's 404", err)
		}
		if n := initializes.Load(); n != 1 {
			t.Errorf("%d initialize requests, want 1: the session was renewed", n)
		}
		leaks(t, &lost)
	})
	t.Run("https to http", func(t *testing.T) {
		elsewhere = seen{}
		srv := httptest.NewTLSServer(http.RedirectHandler(other+"/mcp", http.StatusTemporaryRedirect))
		t.Cleanup(srv.Close)
		connect(t, &client.HTTPTransport{URL: srv.URL + "/mcp", Client: srv.Client(), Header: secret}, &client.Options{Version: mcp.Version20260728})
		leaks(t, &elsewhere)
	})
	t.Run("same origin", func(t *testing.T) {
		var moved seen
		url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			if r.URL.Path == "/old" {
				http.Redirect(w, r, "/new", http.StatusPermanentRedirect)
				return
			}
			record(&moved, r)
			handshake(w, m)
		})
		connect(t, &client.HTTPTransport{URL: url + "/old", Header: secret}, &client.Options{Version: mcp.Version20260728})
		if got := moved.headers[0].Get("Authorization"); got != "Bearer static" {
			t.Errorf("the same origin received Authorization %q", got)
		}
	})
}

// TestUndeclaredElicitationMode sends a URL-mode elicitation (and one of
// a mode that does not exist) to a client that declared form mode only:
// it is answered with an invalid-params error and never reaches the
// handler, both as a session-era request and as a 2026-07-28 input
// request.
func TestUndeclaredElicitationMode(t *testing.T) {
	for _, mode := range []string{"url", "popup"} {
		elicit := map[string]any{"mode": mode, "message": "Sign in", "url": "https://phish.example/login", "elicitationId": "e"}
		var handled atomic.Int32
		opts := func(version string) *client.Options {
			return &client.Options{Version: version, Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				handled.Add(1)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}
		}
		t.Run(mode+" session", func(t *testing.T) {
			answers := make(chan *jsonrpc.Message, 1)
			url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
				switch {
				case m != nil && m.Method == "" && m.ID.Key() == `"ask"`:
					answers <- m
					w.WriteHeader(http.StatusAccepted)
				case m != nil && m.Method == mcp.MethodToolsCall:
					w.Header().Set("Content-Type", "text/event-stream")
					params, _ := json.Marshal(elicit)
					req, _ := json.Marshal(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: jsonrpc.StringID("ask"), Method: mcp.MethodElicit, Params: params})
					fmt.Fprintf(w, "data: %s\n\n", req)
					w.(http.Flusher).Flush()
					a := <-answers
					code := 0
					if a.Error != nil {
						code = a.Error.Code
					}
					res, _ := json.Marshal(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID, Result: json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, code))})
					fmt.Fprintf(w, "data: %s\n\n", res)
				default:
					handshake(w, m)
				}
			})
			c := connect(t, &client.HTTPTransport{URL: url}, opts(mcp.Version20251125))
			res, err := c.CallTool(t.Context(), "login", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != fmt.Sprint(jsonrpc.CodeInvalidParams) {
				t.Errorf("the server got error code %s, want %d", got, jsonrpc.CodeInvalidParams)
			}
		})
		t.Run(mode+" 2026-07-28", func(t *testing.T) {
			url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
				if handshake(w, m) {
					return
				}
				reply(w, m.ID, map[string]any{"resultType": mcp.ResultInputRequired, "inputRequests": map[string]any{
					"q": map[string]any{"method": mcp.MethodElicit, "params": elicit},
				}})
			})
			c := connect(t, &client.HTTPTransport{URL: url}, opts(mcp.Version20260728))
			_, err := c.CallTool(t.Context(), "login", nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), mode) {
				t.Errorf("call: %v, want the mode refused", err)
			}
		})
		if n := handled.Load(); n != 0 {
			t.Errorf("the handler was asked %d times", n)
		}
	}
}

// TestServerRequestFlood has a session-era server send 1,000 pings at once
// on its GET stream and hold every answer open: the client answers at most
// MaxServerRequests of them at a time, refuses as many more with -32000,
// and drops the rest, so the flood costs a bounded number of goroutines.
func TestServerRequestFlood(t *testing.T) {
	const pings = 1000
	flood, release := make(chan struct{}), make(chan struct{})
	entered, answered := make(chan struct{}, pings), make(chan struct{}, pings)
	var inflight, most, results, refusals atomic.Int32
	url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		switch {
		case m == nil && r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-flood:
			case <-r.Context().Done():
				return
			}
			for i := range pings {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n\n", i)
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"sent\"}}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case m != nil && m.Method == "" && !m.ID.IsZero():
			n := inflight.Add(1)
			for old := most.Load(); n > old && !most.CompareAndSwap(old, n); old = most.Load() {
			}
			entered <- struct{}{}
			<-release
			inflight.Add(-1)
			if m.Error != nil && m.Error.Code == -32000 {
				refusals.Add(1)
			} else if m.Result != nil {
				results.Add(1)
			}
			answered <- struct{}{}
			w.WriteHeader(http.StatusAccepted)
		default:
			handshake(w, m)
		}
	})
	logged := make(chan struct{})
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: url}, &client.Options{
		Version: mcp.Version20251125,
		OnLog:   func(mcp.LoggingMessageParams) { close(logged) },
	})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	close(flood)
	<-logged // every ping before it has been taken in
	grown := runtime.NumGoroutine() - before
	// 32 answers are what the client may have in flight: wait for them,
	// then let them (and any beyond) through.
	for range 32 {
		<-entered
	}
	close(release)
	for range 32 {
		<-answered
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pings: %d more goroutines, %d answers in flight at most, %d answered, %d refused", pings, grown, most.Load(), results.Load(), refusals.Load())
	if grown > 300 {
		t.Errorf("%d more goroutines while %d pings were pending", grown, pings)
	}
	if most.Load() > 32 || results.Load() != 16 || refusals.Load() != 16 {
		t.Errorf("%d answers in flight at most, %d answered, %d refused: want 16 answered and 16 refused (MaxServerRequests)", most.Load(), results.Load(), refusals.Load())
	}
}

// TestServerTaskFlood has a session-era server ask for more sampling
// tasks than MaxServerRequests while each one's handler is held: that
// many run, the next is refused with -32000, and the server can still
// poll the ones that run.
func TestServerTaskFlood(t *testing.T) {
	const bound = 4
	ours, theirs := net.Pipe()
	s := &scripted{t: t, conn: theirs, dec: json.NewDecoder(theirs)}
	release := make(chan struct{})
	connectScripted(t, s, ours, &client.Options{Version: mcp.Version20251125, Tasks: true, MaxServerRequests: bound,
		Sampling: func(ctx context.Context, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, errors.New("released")
		}})
	sample := map[string]any{"messages": []any{map[string]any{"role": "user", "content": mcp.Text("hi")}}, "maxTokens": 10, "task": map[string]any{}}
	for i := range bound {
		if m := s.ask(fmt.Sprint("t", i), mcp.MethodSample, sample); m.Error != nil {
			t.Fatalf("task %d: %v", i, m.Error)
		}
	}
	if m := s.ask("over", mcp.MethodSample, sample); m.Error == nil || m.Error.Code != -32000 {
		t.Errorf("a task past the bound: %+v, want -32000", m)
	}
	if m := s.ask("list", mcp.MethodTasksList, nil); m.Error != nil || !strings.Contains(string(m.Result), mcp.TaskWorking) {
		t.Errorf("tasks/list while the tasks run: %+v", m)
	}
	close(release)
}

// runStallingServer is a stdio server that answers the handshake of either
// era and then stops reading its input, for good: it waits for a signal
// that never comes (SIGKILL ends it), so that the runtime sees no deadlock.
func runStallingServer() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(1)
		}
		var m jsonrpc.Message
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		rec := httptest.NewRecorder()
		handshake(rec, &m)
		if m.Method == mcp.MethodDiscover || m.Method == mcp.MethodInitialize {
			os.Stdout.Write(rec.Body.Bytes())
		}
		if m.Method == mcp.MethodDiscover || m.Method == mcp.NotificationInitialized {
			break
		}
	}
	stalled := make(chan os.Signal, 1)
	signal.Notify(stalled, syscall.SIGUSR1)
	<-stalled
	os.Exit(1)
}

// TestStalledStdioServer calls a stdio server that stopped reading, with
// more than its input pipe holds: CallTool returns at its context's
// deadline, and Close returns once its grace period is over, having
// killed the server.
func TestStalledStdioServer(t *testing.T) {
	for _, v := range []string{mcp.Version20260728, mcp.Version20251125} {
		t.Run(v, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), stdioServerEnv+"=stall")
			cmd.Stderr = os.Stderr
			c, err := client.Connect(t.Context(), &client.CommandTransport{Cmd: cmd, WaitDelay: 100 * time.Millisecond}, &client.Options{Version: v})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			big := map[string]string{"text": strings.Repeat("x", 1<<20)}
			err = hangGuard(t, "CallTool", func() error { _, err := c.CallTool(ctx, "echo", big); return err })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("call: %v, want its deadline", err)
			}
			if err := hangGuard(t, "Close", func() error { return c.Close(context.Background()) }); err != nil {
				t.Errorf("close: %v", err)
			}
			if cmd.ProcessState == nil || cmd.ProcessState.Success() {
				t.Errorf("the server %v, want it killed", cmd.ProcessState)
			}
		})
	}
}

// hangGuard runs f and returns its error; if f has not returned after a
// minute, the test fails there (a hang detector, not a timing check).
func hangGuard(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s still blocked after a minute", what)
		return nil
	}
}

// pager is a hostile server whose tools/list never ends: page n holds
// perPage tools and the cursor of page n+1, up to last pages (or the
// same cursor each time when repeat). It counts the pages asked for.
func pager(t *testing.T, perPage, last int, repeat bool) (string, *atomic.Int32) {
	var asked atomic.Int32
	return hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if handshake(w, m) {
			return
		}
		n := int(asked.Add(1))
		tools := make([]map[string]any, perPage)
		for i := range tools {
			tools[i] = map[string]any{"name": fmt.Sprintf("t%d_%d", n, i), "inputSchema": map[string]any{"type": "object"}}
		}
		page := map[string]any{"tools": tools, "resultType": mcp.ResultComplete}
		switch {
		case repeat:
			page["nextCursor"] = "again"
		case n < last:
			page["nextCursor"] = fmt.Sprint("page-", n+1)
		}
		reply(w, m.ID, page)
	}), &asked
}

// TestEndlessPagination lists the tools of servers whose pages do not
// end: past the page bound (1,000 by default), the item bound, or at a
// cursor seen before, the iteration ends with an error, never with a
// shorter list that looks whole.
func TestEndlessPagination(t *testing.T) {
	for _, tc := range []struct {
		name             string
		perPage, last    int
		repeat           bool
		maxPages, maxLen int
		want             string
		pages            int32
	}{
		{"pages, default bound", 1, 5000, false, 0, 0, "more than 1000 pages", 1000},
		{"pages", 1, 5000, false, 10, 0, "more than 10 pages", 10},
		{"items", 100, 5000, false, 0, 250, "more than 250 items", 3},
		{"repeated cursor", 1, 0, true, 0, 0, `cursor "again" twice`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, asked := pager(t, tc.perPage, tc.last, tc.repeat)
			c := connect(t, &client.HTTPTransport{URL: url}, &client.Options{Version: mcp.Version20260728, MaxPages: tc.maxPages, MaxListItems: tc.maxLen})
			var n int
			var err error
			for _, err = range c.Tools(t.Context()) {
				if err != nil {
					break
				}
				n++
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("after %d tools: %v, want an error saying %q", n, err, tc.want)
			}
			if got := asked.Load(); got != tc.pages {
				t.Errorf("%d pages asked for, want %d", got, tc.pages)
			}
		})
	}
}
