package direct_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/internal/msgtest"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/principal"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is the far end of a connection: it sends lines and reads what
// the server emits.
type client struct {
	t    *testing.T
	conn *direct.Conn
	in   chan msgtest.Message
}

func open(t *testing.T, h http.Handler, cfg direct.Config) *client {
	t.Helper()
	c := &client{t: t, in: make(chan msgtest.Message, 64)}
	c.conn = direct.Open(h, func(msg []byte) {
		m, err := msgtest.Decode(msg)
		if err != nil {
			t.Errorf("the connection emitted %q: %v", msg, err)
			return
		}
		c.in <- m
	}, cfg)
	t.Cleanup(func() { _ = c.conn.Close(context.Background()) })
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := c.conn.Send([]byte(msg)); err != nil {
		c.t.Fatalf("Send(%s): %v", msg, err)
	}
}

// next returns the next message the server emits.
func (c *client) next() msgtest.Message {
	c.t.Helper()
	select {
	case m := <-c.in:
		return m
	case <-mcptest.Context(c.t).Done():
		c.t.Fatal("no message from the server by the test's deadline")
		return msgtest.Message{}
	}
}

// quiet checks that the server emits nothing for d.
func (c *client) quiet(d time.Duration) {
	c.t.Helper()
	select {
	case m := <-c.in:
		c.t.Fatalf("unexpected message: %s", m.Raw)
	case <-time.After(d):
	}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

func newFixture() *specter.Router {
	return fixture.New(specter.Logger(zerolog.Nop()))
}

func shutdown(t *testing.T, r *specter.Router) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
}

func TestSession(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})

	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	init := c.next()
	if init.ID != "1" || init.Result["protocolVersion"] != "2025-11-25" {
		t.Fatalf("initialize answered %s", init.Raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r.Sessions() != 1 {
		t.Fatalf("%d sessions, want 1", r.Sessions())
	}

	// A server-to-client request goes out and its answer comes back in.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"}}}`)
	ask := c.next()
	if ask.Method != "elicitation/create" || ask.ID == "" {
		t.Fatalf("want an elicitation request, got %s", ask.Raw)
	}
	c.send(`{"jsonrpc":"2.0","id":` + ask.ID + `,"result":{"action":"accept","content":{"username":"u","email":"e@x"}}}`)
	res := c.next()
	if res.ID != "2" || !strings.Contains(res.Text(), "action=accept") {
		t.Fatalf("tools/call answered %s", res.Raw)
	}

	// Between requests, the session's stream carries notifications.
	mcptest.WaitUntil(t, "the GET stream", func() bool { return r.StreamsAttached() == 1 })
	r.NotifyToolsChanged()
	if n := c.next(); n.Method != "notifications/tools/list_changed" {
		t.Fatalf("want tools/list_changed, got %s", n.Raw)
	}

	// An answer stream the server ends early is resumed.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_reconnection"}}`)
	if res := c.next(); res.ID != "3" || res.Text() != "Reconnection test completed successfully" {
		t.Fatalf("test_reconnection answered %s", res.Raw)
	}

	if err := c.conn.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.Sessions() != 0 || r.StreamsAttached() != 0 {
		t.Errorf("after Close: %d sessions, %d streams", r.Sessions(), r.StreamsAttached())
	}
	if err := c.conn.Send([]byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)); !errors.Is(err, direct.ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
}

// A client that never sends notifications/initialized still gets the
// notifications the server sends between requests.
func TestSessionWithoutInitialized(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.next()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text"}}`)
	if res := c.next(); res.ID != "2" {
		t.Fatalf("tools/call answered %s", res.Raw)
	}
	mcptest.WaitUntil(t, "the GET stream", func() bool { return r.StreamsAttached() == 1 })
	r.NotifyPromptsChanged()
	if n := c.next(); n.Method != "notifications/prompts/list_changed" {
		t.Fatalf("want prompts/list_changed, got %s", n.Raw)
	}
}

func TestStateless(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})

	c.send(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta + `}}`)
	if d := c.next(); d.ID != `"d"` || !strings.Contains(string(d.Raw), `"supportedVersions":["2026-07-28"]`) {
		t.Fatalf("server/discover answered %s", d.Raw)
	}

	// Progress, then the result, on the request's own stream; no headers
	// were needed to mirror the body.
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for i := range 3 {
		if n := c.next(); n.Method != "notifications/progress" {
			t.Fatalf("message %d: want progress, got %s", i, n.Raw)
		}
	}
	if res := c.next(); res.ID != "1" || res.Text() != `"p1"` {
		t.Fatalf("tools/call answered %s", res.Raw)
	}

	// MRTR: input_required, then the retry with the answer.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_input_required_result_elicitation",` + meta + `}}`)
	ir := c.next()
	if ir.Result["resultType"] != "input_required" {
		t.Fatalf("want input_required, got %s", ir.Raw)
	}
	state, _ := json.Marshal(ir.Result["requestState"])
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_input_required_result_elicitation",` + meta +
		`,"requestState":` + string(state) + `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}}}`)
	if res := c.next(); res.ID != "3" || res.Text() != "Hello, Ada!" {
		t.Fatalf("the retry answered %s", res.Raw)
	}
}

// On the 2026-07-28 wire, notifications/cancelled ends the request it
// names: its work stops, and nothing more is sent for it.
func TestStatelessCancel(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	started := blockingTool(r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block",` + meta + `}}`)
	<-started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,` + meta + `}}`)
	c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"greet","arguments":{"name":"x"},` + meta + `}}`)
	if res := c.next(); res.ID != "8" {
		t.Fatalf("want the answer to 8 only, got %s", res.Raw)
	}
	if err := c.conn.Close(mcptest.Context(t)); err != nil {
		t.Fatalf("Close waited for cancelled work: %v", err)
	}
	c.quiet(50 * time.Millisecond)
}

func TestBadInput(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if e := c.next(); e.Error == nil || e.Error.Code != -32700 || e.ID != "" {
		t.Fatalf("want a parse error without an id, got %s", e.Raw)
	}
	// A request before initialize names no session: refused with its id.
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if e := c.next(); e.Error == nil || e.ID != "5" {
		t.Fatalf("want an error for 5, got %s", e.Raw)
	}
	// A handler that answers with no JSON-RPC at all (a wrong path).
	mux := http.NewServeMux()
	mux.Handle("/mcp", r)
	c = open(t, mux, direct.Config{Path: "/elsewhere"})
	c.send(`{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{` + meta + `}}`)
	if e := c.next(); e.Error == nil || e.ID != "6" || e.Error.Code != -32603 || !strings.Contains(e.Error.Message, "404") {
		t.Fatalf("want an internal error for 6, got %s", e.Raw)
	}
}

// Connect sees Config's header and context, as it would an HTTP caller's.
func TestConnectWithoutHTTP(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	r.Connect(func(c *specter.Context) error {
		p := c.Caller()
		if c.HTTPRequest().Header.Get("Authorization") != "Bearer s3cret" || p == nil || p.ID != "ada" {
			return specter.Unauthorized("who are you?")
		}
		c.AllowTools("greet")
		return nil
	})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`

	c := open(t, r, direct.Config{})
	c.send(list)
	if e := c.next(); e.Error == nil || e.ID != "1" {
		t.Fatalf("without credentials: %s", e.Raw)
	}

	ctx := principal.NewContext(context.Background(), &principal.Principal{ID: "ada"})
	c = open(t, r, direct.Config{Header: http.Header{"Authorization": {"Bearer s3cret"}}, Context: ctx})
	c.send(list)
	res := c.next()
	tools, _ := res.Result["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "greet" {
		t.Fatalf("with credentials: %s", res.Raw)
	}
}

// On the 2026-07-28 wire, list-changed notifications come on a
// subscriptions/listen stream, which notifications/cancelled ends, and
// which does not hold Close for the drain.
func TestStatelessListen(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	if ack := c.next(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("want the acknowledgement, got %s", ack.Raw)
	}
	r.NotifyToolsChanged()
	if n := c.next(); n.Method != "notifications/tools/list_changed" {
		t.Fatalf("want tools/list_changed, got %s", n.Raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l",` + meta + `}}`)
	mcptest.WaitUntil(t, "the listen stream to end", func() bool { return r.Listeners() == 0 })
	r.NotifyToolsChanged()
	c.quiet(50 * time.Millisecond)

	// A listen stream open at Close is no work to drain: it ends at once.
	c.send(`{"jsonrpc":"2.0","id":"m","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	c.next()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no drain at all
	if err := c.conn.Close(ctx); err != nil {
		t.Fatalf("Close counted the listen stream as work: %v", err)
	}
	if r.Listeners() != 0 {
		t.Errorf("%d listeners after Close", r.Listeners())
	}
}

// In a session, notifications/cancelled cancels the request's work.
func TestSessionCancel(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	started := blockingTool(r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.next()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`)
	<-started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	if err := c.conn.Close(mcptest.Context(t)); err != nil {
		t.Fatalf("Close waited for cancelled work: %v", err)
	}
	for {
		select {
		case m := <-c.in:
			if m.ID == "2" && m.Error == nil {
				t.Fatalf("the cancelled call answered %s", m.Raw)
			}
			continue
		default:
		}
		break
	}
}

// Close lets running work finish within its context, and cancels it
// after.
func TestCloseDrains(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	c := open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0.2},` + meta + `}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if res := c.next(); res.ID != "1" || !strings.Contains(res.Text(), "Computed") {
		t.Fatalf("the drained call answered %s", res.Raw)
	}

	c = open(t, r, direct.Config{})
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":30},` + meta + `}}`)
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.conn.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close of a call that outlives the drain: %v", err)
	}
}

// Concurrent requests of one connection run side by side, and out is
// never called twice at once.
func TestConcurrentRequests(t *testing.T) {
	r := newFixture()
	shutdown(t, r)
	var mu sync.Mutex
	busy, overlap := false, false
	got := make(chan struct{}, 100)
	conn := direct.Open(r, func([]byte) {
		mu.Lock()
		if busy {
			overlap = true
		}
		busy = true
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		busy = false
		mu.Unlock()
		got <- struct{}{}
	}, direct.Config{})
	for i := range 20 {
		_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}`, i, meta))
	}
	_ = conn.Close(context.Background())
	if len(got) != 20 {
		t.Errorf("%d answers to 20 requests", len(got))
	}
	if overlap {
		t.Error("out was called concurrently")
	}
}

// blockingTool registers "block", whose work signals on the returned
// channel once it runs and then waits for its own cancellation: a test
// cancels work it knows to be running, and a cancellation that is lost
// holds the work, and the Close that drains it, until the test's deadline.
func blockingTool(r *specter.Router) <-chan struct{} {
	started := make(chan struct{}, 1)
	r.Tool("block", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		started <- struct{}{}
		<-c.Done()
		return specter.Error(c.Err())
	}, specter.Description("Runs until cancelled"))
	return started
}

// A batch is handed over in one Send: in a 2025-03-26 session, which
// allows batches, every request of it is answered; a later revision's
// session refuses it, as over HTTP.
func TestBatch(t *testing.T) {
	for _, tc := range []struct{ version, want string }{{"2025-03-26", "answered"}, {"2025-11-25", "refused"}} {
		t.Run(tc.version, func(t *testing.T) {
			r := newFixture()
			shutdown(t, r)
			raw := make(chan []byte, 16)
			conn := direct.Open(r, func(msg []byte) { raw <- append([]byte(nil), msg...) }, direct.Config{})
			defer conn.Close(context.Background())
			next := func() []byte {
				select {
				case b := <-raw:
					return b
				case <-mcptest.Context(t).Done():
					t.Fatal("no message from the server by the test's deadline")
					return nil
				}
			}
			send := func(msg string) {
				if err := conn.Send([]byte(msg)); err != nil {
					t.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if m, err := msgtest.Decode(next()); err != nil || m.ID != "1" || m.Result["protocolVersion"] != tc.version {
				t.Fatalf("initialize answered %s (%v)", m.Raw, err)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)

			if tc.want == "refused" {
				m, err := msgtest.Decode(next())
				if err != nil || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "batches") {
					t.Fatalf("a batch in %s answered %s (%v)", tc.version, m.Raw, err)
				}
				return
			}
			// The answers come as one array, or one message each.
			seen := map[string]msgtest.Message{}
			for len(seen) < 2 {
				b := next()
				var items []json.RawMessage
				if json.Unmarshal(b, &items) != nil {
					items = []json.RawMessage{b}
				}
				for _, item := range items {
					m, err := msgtest.Decode(item)
					if err != nil || m.Method != "" || m.Error != nil {
						t.Fatalf("the batch answered %s (%v)", b, err)
					}
					seen[m.ID] = m
				}
			}
			if _, ok := seen["2"]; !ok {
				t.Errorf("no answer to ping: %v", seen)
			}
			if tools, _ := seen["3"].Result["tools"].([]any); len(tools) == 0 {
				t.Errorf("tools/list in the batch answered %s", seen["3"].Raw)
			}
		})
	}
}
