package integration

import (
	"errors"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestInitializeNegotiatesEachSessionVersion(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2099-01-01", "2025-11-25"}, // unknown: the server offers its latest
	} {
		c := e.newClient(nil)
		res, err := c.Initialize(ctx(t), tc.asked)
		if err != nil {
			t.Fatalf("%s: %v", tc.asked, err)
		}
		if res.ProtocolVersion != tc.want {
			t.Errorf("asked %s: negotiated %s, want %s", tc.asked, res.ProtocolVersion, tc.want)
		}
		if !regexp.MustCompile(`^[\x21-\x7E]{16,}$`).MatchString(c.SessionID) {
			t.Errorf("session id %q is not long visible ASCII", c.SessionID)
		}
		if res.ServerInfo.Name != "mcp-conformance-test-server" || res.Capabilities.Tools == nil || !res.Capabilities.Resources.Subscribe {
			t.Errorf("initialize result %+v", res)
		}
		if _, err := c.Call(ctx(t), "ping", nil); err != nil {
			t.Errorf("ping at %s: %v", tc.want, err)
		}
	}
	if e.checked.Load() == 0 {
		t.Fatal("no message was schema-checked")
	}
}

func TestSessionsAreDistinctAndRandom(t *testing.T) {
	e := newEnv(t, nil)
	seen := map[string]bool{}
	for range 20 {
		c := e.session(e.newClient(nil), "2025-11-25")
		if seen[c.SessionID] {
			t.Fatalf("session id %q issued twice", c.SessionID)
		}
		seen[c.SessionID] = true
	}
	if got := e.r.Sessions(); got != 20 {
		t.Errorf("router counts %d sessions, want 20", got)
	}
}

func TestDeleteEndsSessionAndEveryLaterRequestIs404(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	if status, err := c.Delete(ctx(t)); err != nil || status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %v", status, err)
	}
	resp, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil || resp.Status != http.StatusNotFound {
		t.Fatalf("POST after DELETE: %+v %v, want 404", resp, err)
	}
	if status, _ := c.Notify(ctx(t), "notifications/initialized", nil); status != http.StatusNotFound {
		t.Errorf("notification after DELETE: %d, want 404", status)
	}
	if _, err := c.Listen(ctx(t), ""); !isStatus(err, http.StatusNotFound) {
		t.Errorf("GET after DELETE: %v, want 404", err)
	}
	if status, _ := c.Delete(ctx(t)); status != http.StatusNotFound {
		t.Errorf("second DELETE: %d, want 404", status)
	}
	if e.r.Sessions() != 0 {
		t.Errorf("%d sessions remain", e.r.Sessions())
	}
}

func isStatus(err error, status int) bool {
	se, ok := err.(*mcptest.StatusError)
	return ok && se.Status == status
}

func TestUnknownSessionIs404(t *testing.T) {
	e := newEnv(t, nil)
	c := e.newClient(nil)
	c.SessionID = "no-such-session"
	resp, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil || resp.Status != http.StatusNotFound || resp.Error == nil {
		t.Fatalf("got %+v %v, want 404 with a JSON-RPC error", resp, err)
	}
}

func TestRequestWithoutSessionIs400ButInitializedNotificationIsAccepted(t *testing.T) {
	e := newEnv(t, nil)
	c := e.newClient(nil)
	resp, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil || resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("got %+v %v, want 400 -32600", resp, err)
	}
	if status, _ := c.Notify(ctx(t), "notifications/initialized", nil); status != http.StatusAccepted {
		t.Errorf("notifications/initialized without a session: %d, want 202", status)
	}
}

func TestInitializeTwiceInASessionFails(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	resp, err := c.Call(ctx(t), "initialize", &mcp.InitializeParams{ProtocolVersion: "2025-11-25", ClientInfo: mcp.Implementation{Name: "x", Version: "1"}})
	if err != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("got %+v %v, want -32600", resp, err)
	}
}

func TestIdleSessionsAreReclaimed(t *testing.T) {
	ended := make(chan string, 1)
	r := fixture.New(quiet, specter.SessionTimeout(50*time.Millisecond),
		specter.OnTerminate(func(reason string, _ *specter.Session) { ended <- reason }))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	select {
	case reason := <-ended:
		if reason != specter.EndTimeout {
			t.Errorf("reason %q, want %q", reason, specter.EndTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session was not reclaimed")
	}
	resp, _ := c.Call(ctx(t), "ping", nil)
	if resp.Status != http.StatusNotFound {
		t.Errorf("ping on a reclaimed session: %d, want 404", resp.Status)
	}
}

func TestSessionWithOpenStreamIsNotReclaimed(t *testing.T) {
	ended := make(chan string, 64)
	r := fixture.New(quiet, specter.SessionTimeout(30*time.Millisecond),
		specter.OnTerminate(func(_ string, s *specter.Session) { ended <- s.ID() }))
	e := newEnv(t, r)
	// A loaded machine may take longer than the timeout between initialize
	// and the GET: a session reclaimed before its stream opened proves
	// nothing either way, so it is tried again with a new one.
	var (
		c *mcptest.Client
		s *mcptest.Stream
	)
	for s == nil {
		c = e.newClient(nil)
		if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
			if reclaimed(err) {
				t.Log("reclaimed before its stream opened; again")
				continue
			}
			t.Fatal(err)
		}
		var err error
		if s, err = c.Listen(ctx(t), ""); err != nil {
			if !reclaimed(err) {
				t.Fatal(err)
			}
			t.Log("reclaimed before its stream opened; again")
		}
	}
	defer s.Close()
	// A second session goes idle after the first one's stream opened: once
	// the sweeper reclaims it, it has passed the first one's deadline too.
	idle := e.newClient(nil)
	if _, err := idle.Initialize(ctx(t), "2025-11-25"); err != nil && !reclaimed(err) {
		t.Fatal(err)
	}
	for {
		select {
		case id := <-ended:
			if id == c.SessionID {
				t.Fatal("a session with an open GET stream was reclaimed")
			}
			if id != idle.SessionID {
				continue // one reclaimed before its stream opened
			}
		case <-ctx(t).Done():
			t.Fatal("the idle session was never reclaimed")
		}
		break
	}
	if n := e.r.Sessions(); n != 1 {
		t.Fatalf("%d sessions, want the one with its stream", n)
	}
}

// reclaimed reports whether err is the 404 of a session the server no
// longer knows.
func reclaimed(err error) bool {
	var se *mcptest.StatusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

func TestMaxSessions(t *testing.T) {
	e := newEnv(t, fixture.New(quiet, specter.MaxSessions(2)))
	e.session(e.newClient(nil), "2025-11-25")
	e.session(e.newClient(nil), "2025-11-25")
	_, err := e.newClient(nil).Initialize(ctx(t), "2025-11-25")
	if err == nil {
		t.Fatal("a third session was created past MaxSessions(2)")
	}
}
