package integration

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// cart is application session data.
type cart struct {
	Owner string `json:"owner"`
	Items int    `json:"items"`
}

// shop declares a tool that keeps a cart in the session.
func shop(r *specter.Router) {
	r.Tool("add_item", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		var k cart
		if _, err := c.Session().Load("cart", &k); err != nil {
			return specter.Error(err)
		}
		k.Items++
		if err := c.Session().Store("cart", k); err != nil {
			return specter.Error(err)
		}
		return specter.Reply(k)
	}, specter.Description("Adds an item to the session's cart"))
}

type endLog struct {
	mu      sync.Mutex
	reasons []string
	carts   []cart
}

func (l *endLog) record(reason string, s *specter.Session) {
	var k cart
	_, _ = s.Load("cart", &k)
	l.mu.Lock()
	l.reasons = append(l.reasons, reason)
	l.carts = append(l.carts, k)
	l.mu.Unlock()
}

// wait returns the reasons once there are n, or those there are at the
// test's deadline.
func (l *endLog) wait(t *testing.T, n int) []string {
	t.Helper()
	done := testCtx(t).Done()
	for {
		l.mu.Lock()
		got := append([]string(nil), l.reasons...)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-done:
			return got
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func sessionHooks(ended *endLog) []specter.RouterOption {
	return []specter.RouterOption{
		specter.OnSessionStart(func(c *specter.Context, s *specter.Session) error {
			// The app's own data for the session, keyed here by the caller.
			return s.Store("cart", cart{Owner: c.HTTPRequest().Header.Get("X-User")})
		}),
		specter.OnTerminate(ended.record),
	}
}

func TestSessionHooksAndDataInOneProcess(t *testing.T) {
	var ended endLog
	r := fixture.New(append(sessionHooks(&ended), quiet, specter.SessionTimeout(300*time.Millisecond))...)
	shop(r)
	e := newEnv(t, r)
	c := e.newClient(nil)
	c.Header.Set("X-User", "ada")
	e.session(c, "2025-11-25")
	for i := 1; i <= 3; i++ {
		res, _, err := c.CallTool(ctx(t), "add_item", nil)
		if err != nil || string(res.StructuredContent) != `{"owner":"ada","items":`+string(rune('0'+i))+`}` {
			t.Fatalf("call %d: %s %v", i, res.StructuredContent, err)
		}
	}
	if status, _ := c.Delete(ctx(t)); status != http.StatusNoContent {
		t.Fatal(status)
	}
	idle := e.session(e.newClient(nil), "2025-11-25") // left to time out
	_ = idle
	got := ended.wait(t, 2)
	if strings.Join(got, ",") != specter.EndClient+","+specter.EndTimeout {
		t.Fatalf("reasons %v, want client then timeout", got)
	}
	if ended.carts[0].Items != 3 || ended.carts[0].Owner != "ada" {
		t.Errorf("OnTerminate saw the cart %+v, want ada's 3 items", ended.carts[0])
	}
	live := e.session(e.newClient(nil), "2025-11-25")
	_ = live
	if err := e.r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ended.wait(t, 3); len(got) != 3 || got[2] != specter.EndShutdown {
		t.Fatalf("reasons %v, want shutdown last", got)
	}
}

func TestSessionDataAndHooksAcrossNodes(t *testing.T) {
	redis := redistest.Start(t)
	var ended endLog
	nodes := newCluster(t, redis.URL, 2, shop, sessionHooks(&ended)...)
	a := mcptest.NewClient(nodes[0].url)
	a.HTTP = nodes[0].srv.Client()
	a.Header.Set("X-User", "grace")
	if _, err := a.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	for i, n := range []*node{nodes[0], nodes[1], nodes[0], nodes[1]} {
		res, _, err := on(t, a, n).CallTool(ctx(t), "add_item", nil)
		if err != nil || !strings.Contains(string(res.StructuredContent), `"items":`+string(rune('1'+i))) {
			t.Fatalf("call %d: %s %v", i, res.StructuredContent, err)
		}
	}
	if status, _ := on(t, a, nodes[1]).Delete(ctx(t)); status != http.StatusNoContent {
		t.Fatal(status)
	}
	if got := ended.wait(t, 1); len(got) != 1 || got[0] != specter.EndClient || ended.carts[0].Items != 4 {
		t.Fatalf("OnTerminate once with the client reason and 4 items: %v %+v", got, ended.carts)
	}
	time.Sleep(100 * time.Millisecond)
	if got := ended.wait(t, 1); len(got) != 1 {
		t.Fatalf("OnTerminate ran %d times", len(got))
	}
}

// TestBufferOverflowIsReported resumes a stream whose oldest messages no
// longer fit the buffer: the client is told, not left with a silent gap.
func TestBufferOverflowIsReported(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet, specter.BufferBytes(2048))
	said := make(chan struct{})
	r.Tool("chatty", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			s.CloseSSE()
			for i := range 100 {
				_ = s.Log(mcp.LevelInfo, map[string]any{"n": i, "pad": strings.Repeat("x", 50)})
			}
			close(said)
			return specter.Reply("done")
		})
	}, specter.Description("Says a lot while nobody listens"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "chatty"})
	if !errors.Is(err, mcptest.ErrStreamEnded) {
		t.Fatalf("%+v %v", resp, err)
	}
	<-said // all 100 messages are in the buffer, or dropped from it
	s, err := c.Listen(ctx(t), resp.Events[len(resp.Events)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _, err := s.Next()
	if err != nil || m.Method != "notifications/message" || !strings.Contains(string(m.Params), `"level":"error"`) || !strings.Contains(string(m.Params), "dropped") {
		t.Fatalf("first message of the resume: %+v %v, want a notice that messages were dropped", m, err)
	}
	count := 0
	for {
		m, _, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Method == "notifications/message" {
			count++
			continue
		}
		if count == 0 || count >= 100 {
			t.Fatalf("%d messages kept of 100 in a 2 KiB buffer", count)
		}
		return
	}
}

// wrappedMemory is an app's instrumented in-process backplane.
type wrappedMemory struct{ *backplane.Memory }

// sharedMemory declares itself shared, as a backplane of many nodes does.
type sharedMemory struct{ *backplane.Memory }

func (sharedMemory) Sharing() backplane.Sharing { return backplane.Shared }

// TestShutdownFollowsTheBackplanesSharing: the router asks the backplane
// whether its state is in-process (sessions end with the router) or
// shared (other nodes go on serving them), rather than guessing from its
// type (issue 8).
func TestShutdownFollowsTheBackplanesSharing(t *testing.T) {
	tests := []struct {
		name string
		bp   backplane.Backplane
		want []string
	}{
		{"memory", backplane.NewMemory(), []string{specter.EndShutdown}},
		{"wrapped memory", wrappedMemory{backplane.NewMemory()}, []string{specter.EndShutdown}},
		{"shared", sharedMemory{backplane.NewMemory()}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ended endLog
			r := fixture.New(quiet, specter.Backplane(tt.bp), specter.OnTerminate(ended.record))
			e := newEnv(t, r)
			e.session(nil, "2025-11-25")
			if err := r.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			ended.mu.Lock()
			got := ended.reasons
			ended.mu.Unlock()
			if !slices.Equal(got, tt.want) {
				t.Errorf("sessions ended with %v, want %v", got, tt.want)
			}
		})
	}
}
