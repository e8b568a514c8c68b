package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

const (
	toolsChanged     = "notifications/tools/list_changed"
	promptsChanged   = "notifications/prompts/list_changed"
	resourcesChanged = "notifications/resources/list_changed"
	resourceUpdated  = "notifications/resources/updated"
)

// updated is how expect names a resource update: its method and URI.
func updated(uri string) string { return resourceUpdated + " " + uri }

// listen opens a listen stream, closed when the test ends, and checks its
// acknowledgement: the first message, tagged with the request id, naming
// the filter.
func listen(t *testing.T, c *mcptest.StatelessClient, filter mcp.SubscriptionFilter) *mcptest.Subscription {
	t.Helper()
	sub, err := c.Listen(ctx(t), filter)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { sub.Close() })
	checkAck(t, sub, filter)
	return sub
}

func checkAck(t *testing.T, sub *mcptest.Subscription, filter mcp.SubscriptionFilter) {
	t.Helper()
	if sub.Status != 200 || sub.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("listen answered HTTP %d %q", sub.Status, sub.Header.Get("Content-Type"))
	}
	m, err := sub.Next(ctx(t))
	if err != nil {
		t.Fatalf("no acknowledgement: %v", err)
	}
	if m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %s, want the acknowledgement", m.Method)
	}
	var p struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications json.RawMessage            `json:"notifications"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if id := p.Meta[mcp.MetaSubscriptionID]; !bytes.Equal(id, sub.ID) {
		t.Errorf("acknowledgement subscriptionId %s, want the request id %s", id, sub.ID)
	}
	if got, want := canonical(string(p.Notifications)), canonical(mustJSON(filter)); got != want {
		t.Errorf("acknowledged filter %s, want %s", got, want)
	}
}

// expect reads the next messages of sub and checks they are exactly want,
// in order, each tagged with the subscription id. A resource update is
// written as updated(uri).
func expect(t *testing.T, sub *mcptest.Subscription, want ...string) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, w := range want {
		m, err := sub.Next(c)
		if err != nil {
			t.Fatalf("subscription %s: message %d of %q: %v", sub.ID, i, want, err)
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
			URI  string                     `json:"uri"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		got := m.Method
		if m.Method == resourceUpdated {
			got = updated(p.URI)
		}
		if got != w {
			t.Fatalf("subscription %s: message %d is %q, want %q (all: %q)", sub.ID, i, got, w, want)
		}
		if id := p.Meta[mcp.MetaSubscriptionID]; !bytes.Equal(id, sub.ID) {
			t.Errorf("subscription %s: %s tagged %s", sub.ID, m.Method, id)
		}
	}
}

// nothingMore checks that nothing arrives on sub for a while.
func nothingMore(t *testing.T, sub *mcptest.Subscription) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if m, err := sub.Next(c); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("subscription %s: unexpected %+v, %v", sub.ID, m, err)
	}
}

// nextLegacy reads the next message of a session's GET stream.
func nextLegacy(t *testing.T, s *mcptest.Stream) *jsonrpc.Message {
	t.Helper()
	m, err := nextWithin(s, 10*time.Second)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	return m
}

func TestStatelessListenAcknowledgesFirst(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	for _, f := range []mcp.SubscriptionFilter{
		{},
		{ToolsListChanged: true},
		{PromptsListChanged: true, ResourcesListChanged: true},
		{ResourceSubscriptions: []string{"test://watched-resource", "test://static-text"}},
		{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}},
	} {
		listen(t, c, f)
	}
	// A string id is echoed as a string.
	r := c.Request("subscriptions/listen", map[string]any{"notifications": mcp.SubscriptionFilter{ToolsListChanged: true}})
	r.ID = jsonrpc.StringID("sub-1")
	sub, err := c.Open(ctx(t), r)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	checkAck(t, sub, mcp.SubscriptionFilter{ToolsListChanged: true})
	eventually(t, "all listeners are registered", func() bool { return e.r.Listeners() == 6 })
	e.r.NotifyToolsChanged()
	expect(t, sub, toolsChanged)
}

func TestStatelessListenFilters(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	const watched, static = "test://watched-resource", "test://static-text"
	tools := listen(t, c, mcp.SubscriptionFilter{ToolsListChanged: true})
	prompts := listen(t, c, mcp.SubscriptionFilter{PromptsListChanged: true})
	resources := listen(t, c, mcp.SubscriptionFilter{ResourcesListChanged: true})
	watching := listen(t, c, mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched}})
	all := listen(t, c, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{static}})
	none := listen(t, c, mcp.SubscriptionFilter{})
	eventually(t, "all listeners are registered", func() bool { return e.r.Listeners() == 6 })

	fire := func() {
		e.r.NotifyPromptsChanged()
		e.r.NotifyResourcesChanged()
		e.r.NotifyResourceUpdated(static)
		e.r.NotifyResourceUpdated(watched)
		e.r.NotifyResourceUpdated("test://nobody-watches")
		e.r.NotifyToolsChanged()
	}
	// Twice: a notification that slipped through the filter in the first
	// round would show up in place of the second round's.
	fire()
	fire()
	expect(t, tools, toolsChanged, toolsChanged)
	expect(t, prompts, promptsChanged, promptsChanged)
	expect(t, resources, resourcesChanged, resourcesChanged)
	expect(t, watching, updated(watched), updated(watched))
	expect(t, all, promptsChanged, resourcesChanged, updated(static), toolsChanged, promptsChanged, resourcesChanged, updated(static), toolsChanged)
	for _, sub := range []*mcptest.Subscription{tools, prompts, resources, watching, all, none} {
		nothingMore(t, sub)
	}

	// The fixture's trigger tools notify the listeners that asked.
	toolText(t, callTool(t, c, "test_trigger_tool_change", map[string]any{}, nil))
	toolText(t, callTool(t, c, "test_trigger_prompt_change", map[string]any{}, nil))
	expect(t, tools, toolsChanged)
	expect(t, prompts, promptsChanged)
	expect(t, all, toolsChanged, promptsChanged)
}

func TestStatelessResourceUpdatedRespectsAllowList(t *testing.T) {
	r := fixture.New(quiet)
	r.Connect(func(c *specter.Context) error {
		switch c.HTTPRequest().Header.Get("X-Plan") {
		case "basic":
			c.SetPrincipal("basic-user")
			c.AllowResources("test://static-text", "test://template/{id}/data")
		case "ultra":
			c.SetPrincipal("ultra-user")
		}
		return nil
	})
	e := newEnv(t, r)
	basicClient, ultraClient := e.stateless(), e.stateless()
	basicClient.Header.Set("X-Plan", "basic")
	ultraClient.Header.Set("X-Plan", "ultra")
	const watched, static, item = "test://watched-resource", "test://static-text", "test://template/7/data"
	basic := listen(t, basicClient, mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched, static, item}})
	ultra := listen(t, ultraClient, mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched, static}})
	eventually(t, "both listeners are registered", func() bool { return e.r.Listeners() == 2 })

	e.r.NotifyResourceUpdated(watched)
	e.r.NotifyResourceUpdated(item)
	e.r.NotifyResourceUpdated(static, specter.ForPrincipal("ultra-user"))
	e.r.NotifyResourceUpdated(static)
	expect(t, basic, updated(item), updated(static))
	expect(t, ultra, updated(watched), updated(static), updated(static))
	nothingMore(t, basic)
	nothingMore(t, ultra)
}

func TestStatelessNotifyForPrincipal(t *testing.T) {
	r := fixture.New(quiet)
	r.Connect(func(c *specter.Context) error {
		c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
		return nil
	})
	e := newEnv(t, r)
	filter := mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}
	subs := map[string]*mcptest.Subscription{}
	gets := map[string]*mcptest.Stream{}
	for _, who := range []string{"alice", "bob"} {
		legacy := e.newClient(nil)
		legacy.Header.Set("X-User", who)
		e.session(legacy, "2025-11-25")
		s, err := legacy.Listen(ctx(t), "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		gets[who] = s
	}
	// The GET streams were opened first, so they are attached by the time
	// the listen streams are acknowledged (see TestStatelessNotifyReachesAJustOpenedGETStream).
	for _, who := range []string{"alice", "bob"} {
		c := e.stateless()
		c.Header.Set("X-User", who)
		subs[who] = listen(t, c, filter)
	}
	eventually(t, "both listeners are registered", func() bool { return e.r.Listeners() == 2 })

	e.r.NotifyToolsChanged(specter.ForPrincipal("alice"))
	e.r.NotifyPromptsChanged()
	e.r.NotifyToolsChanged(specter.ForPrincipal("nobody"))
	e.r.NotifyPromptsChanged(specter.ForPrincipal("bob"))
	e.r.NotifyResourcesChanged()
	want := map[string][]string{
		"alice": {toolsChanged, promptsChanged, resourcesChanged},
		"bob":   {promptsChanged, promptsChanged, resourcesChanged},
	}
	for who, w := range want {
		expect(t, subs[who], w...)
		nothingMore(t, subs[who])
		for i, method := range w {
			if m := nextLegacy(t, gets[who]); m.Method != method {
				t.Errorf("%s's GET stream: message %d is %s, want %s", who, i, m.Method, method)
			}
		}
	}
}

// TestStatelessNotifyReachesAJustOpenedGETStream: once a session's GET
// stream has answered 200, a notification for its principal reaches it,
// however soon it is sent. The window it probes is short, so it opens
// many streams.
func TestStatelessNotifyReachesAJustOpenedGETStream(t *testing.T) {
	r := fixture.New(quiet)
	r.Connect(func(c *specter.Context) error {
		c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
		return nil
	})
	e := newEnv(t, r)
	for i := range 40 {
		who := fmt.Sprintf("user-%d", i)
		legacy := e.newClient(nil)
		legacy.Header.Set("X-User", who)
		e.session(legacy, "2025-11-25")
		s, err := legacy.Listen(ctx(t), "")
		if err != nil {
			t.Fatal(err)
		}
		e.r.NotifyToolsChanged(specter.ForPrincipal(who))
		m, err := nextWithin(s, 2*time.Second)
		s.Close()
		if err != nil {
			t.Fatalf("stream %d: the notification sent right after the GET stream opened never arrived: %v", i, err)
		}
		if m.Method != toolsChanged {
			t.Fatalf("stream %d: %s, want %s", i, m.Method, toolsChanged)
		}
	}
}

// nextWithin reads the next message of a GET stream, closing the stream
// if none arrives within d.
func nextWithin(s *mcptest.Stream, d time.Duration) (*jsonrpc.Message, error) {
	type result struct {
		m   *jsonrpc.Message
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, _, err := s.Next()
		ch <- result{m, err}
	}()
	select {
	case r := <-ch:
		return r.m, r.err
	case <-time.After(d):
		s.Close()
		<-ch
		return nil, fmt.Errorf("no message within %v", d)
	}
}

func TestStatelessRuntimeDeclarationsNotifyListeners(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	all := listen(t, c, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
	tools := listen(t, c, mcp.SubscriptionFilter{ToolsListChanged: true})
	eventually(t, "both listeners are registered", func() bool { return e.r.Listeners() == 2 })
	h := func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("late") }
	e.r.Tool("late_tool", h, specter.Description("Declared while serving"))
	expect(t, all, toolsChanged)
	var list mcp.ListToolsResult
	complete(t, call(t, c, "tools/list", nil), &list)
	if list.Tools[len(list.Tools)-1].Name != "late_tool" {
		t.Errorf("tools/list does not end with the new tool: %s", mustJSON(list.Tools[len(list.Tools)-1]))
	}
	e.r.Prompt("late_prompt", h, specter.Description("Declared while serving"))
	e.r.Resource("test://late", h, specter.Description("Declared while serving"))
	if !e.r.RemoveTool("late_tool") {
		t.Fatal("RemoveTool found no tool")
	}
	expect(t, all, promptsChanged, resourcesChanged, toolsChanged)
	expect(t, tools, toolsChanged, toolsChanged)
	nothingMore(t, all)
	nothingMore(t, tools)
}

// KeepAlive sets the interval of the comments on a quiet stream: compared
// with a stream at the default 15 s, opened first and watched as long,
// not timed, so that a slow machine stretches both alike.
func TestStatelessListenKeepAlive(t *testing.T) {
	quietSub := listen(t, newEnv(t, nil).stateless(), mcp.SubscriptionFilter{})
	e := newEnv(t, fixture.New(quiet, specter.KeepAlive(20*time.Millisecond)))
	sub := listen(t, e.stateless(), mcp.SubscriptionFilter{ToolsListChanged: true})
	eventually(t, "three keep-alive comments arrive", func() bool { return sub.Comments() >= 3 })
	if n := quietSub.Comments(); n != 0 {
		t.Errorf("%d keep-alive comments at the default interval while three came at 20 ms", n)
	}
	e.r.NotifyToolsChanged()
	expect(t, sub, toolsChanged)
}

func TestStatelessListenEndsWithTheRouter(t *testing.T) {
	e := newEnv(t, nil)
	sub := listen(t, e.stateless(), mcp.SubscriptionFilter{ToolsListChanged: true})
	eventually(t, "the listener is registered", func() bool { return e.r.Listeners() == 1 })
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.r.Shutdown(c); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := sub.Next(c)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the stream did not end with the router: %v", err)
		}
		// A graceful end may carry a SubscriptionsListenResult (the
		// checker validates it); nothing else may arrive.
		if m.Method != "" || string(m.ID) != string(sub.ID) {
			t.Errorf("after shutdown: %s %s", m.Method, m.ID)
		}
	}
	eventually(t, "the listener is gone", func() bool { return e.r.Listeners() == 0 })

	// A stream opened after shutdown is refused, or ends at once: it must
	// not stay open on a router that is gone.
	late, err := e.stateless().Listen(c, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		return
	}
	defer late.Close()
	end, stop := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop()
	for {
		m, err := late.Next(end)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("a listen stream opened after Shutdown is still open after 2 s (%v); %d listener(s) registered", err, e.r.Listeners())
		}
		if m.Method != "notifications/subscriptions/acknowledged" && m.Method != "" {
			t.Errorf("after shutdown: %s", m.Method)
		}
	}
}

func TestStatelessListenRefusals(t *testing.T) {
	r := fixture.New(quiet)
	r.Connect(func(c *specter.Context) error {
		if c.HTTPRequest().Header.Get("Authorization") == "" {
			return specter.Unauthorized("log in")
		}
		return nil
	})
	e := newEnv(t, r)
	c := e.stateless()
	req := c.Request("subscriptions/listen", map[string]any{"notifications": map[string]any{}})
	resp := send(t, c, req)
	wantError(t, resp, req.ID, 401, jsonrpc.CodeInvalidRequest)
	if resp.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without a challenge")
	}
	c.Header.Set("Authorization", "Bearer ok")
	req = c.Request("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": "yes"}})
	wantError(t, send(t, c, req), req.ID, 400, jsonrpc.CodeInvalidParams)
	req = c.Request("subscriptions/listen", map[string]any{"notifications": map[string]any{}})
	req.Header.Set("Mcp-Method", "tools/list")
	wantError(t, send(t, c, req), req.ID, 400, jsonrpc.CodeHeaderMismatch)
	if n := e.r.Listeners(); n != 0 {
		t.Errorf("%d listeners after refusals", n)
	}
}

// TestStatelessThousandListenStreams opens 1,000 listen streams at once, then
// closes them, and checks that the router lets go of every one: no
// listener left, and the goroutine count back to where it was. Opening
// and closing 1,000 streams under the race detector on a loaded machine
// takes however long it takes: every wait here ends on what it waits for
// or at the test's own deadline, never after a guessed time.
func TestStatelessThousandListenStreams(t *testing.T) {
	const streams, batch = 1000, 100
	// One client opens them all: no per-caller cap.
	e := newEnv(t, fixture.New(quiet, specter.MaxListenersPerPrincipal(0)))
	c := e.stateless()
	// Warm up the client and server so that their lazily started
	// goroutines are in the baseline.
	warm := listen(t, c, mcp.SubscriptionFilter{})
	warm.Close()
	waitUntil(t, "the warm-up listener is gone", func() bool { return e.r.Listeners() == 0 })
	baseline := runtime.NumGoroutine()

	subs := make([]*mcptest.Subscription, streams)
	cx := testCtx(t) // the streams live on it
	open := func(i int) error {
		s, err := c.Listen(cx, mcp.SubscriptionFilter{ToolsListChanged: true})
		if err != nil {
			return err
		}
		subs[i] = s
		m, err := s.Next(cx)
		if err != nil || m.Method != "notifications/subscriptions/acknowledged" {
			return errors.Join(errors.New("no acknowledgement"), err)
		}
		return nil
	}
	inBatches := func(f func(i int) error) {
		for start := 0; start < streams; start += batch {
			var wg sync.WaitGroup
			errs := make([]error, batch)
			for j := range batch {
				wg.Go(func() { errs[j] = f(start + j) })
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("batch at %d: %v", start, err)
			}
		}
	}
	t.Cleanup(func() {
		for _, s := range subs {
			if s != nil {
				s.Close()
			}
		}
	})
	inBatches(open)
	waitUntil(t, "every listener is registered", func() bool { return e.r.Listeners() == streams })
	e.r.NotifyToolsChanged()
	for _, i := range []int{0, streams / 2, streams - 1} {
		m, err := subs[i].Next(cx)
		if err != nil || m.Method != toolsChanged {
			t.Fatalf("listener %d after NotifyToolsChanged: %+v %v", i, m, err)
		}
	}
	inBatches(func(i int) error { return subs[i].Close() })

	// The slack covers goroutines that are not the router's and end on
	// their own schedule (net/http's per-connection goroutines on both
	// ends of 1,000 closed connections, the schema checker's lazy
	// compilation); 1,000 leaked streams would leave thousands.
	const slack = 10
	for {
		n, g := e.r.Listeners(), runtime.NumGoroutine()
		if n == 0 && g <= baseline+slack {
			break
		}
		select {
		case <-cx.Done():
			t.Fatalf("after closing %d streams: %d listeners, %d goroutines (baseline %d)", streams, n, g, baseline)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
