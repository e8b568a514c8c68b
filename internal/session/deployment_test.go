package session_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcp"
)

// node returns the sessions of one node on bp, recording every end.
func node(t *testing.T, bp backplane.Backplane, local bool, ended *[]string) (*session.Cluster, *session.Table) {
	t.Helper()
	streams := stream.NewNode(stream.Config{Backplane: bp, Local: local, BufferBytes: 1 << 20,
		WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	tab := session.NewTable(session.Config{Backplane: bp, Local: local, Streams: streams, Timeout: time.Minute,
		Node: "n1", Log: zerolog.Nop(), Publish: func(m *backplane.Message) { _ = bp.Publish(context.Background(), m) }})
	c := session.NewCluster(session.ClusterConfig{Backplane: bp, Local: local, Sessions: tab, Streams: streams, Log: zerolog.Nop(),
		Ended: func(s *session.Session, reason string) { *ended = append(*ended, s.ID()+" "+reason) },
		Unsubscribed: func(s *session.Session, uri string) {
			if uri == "app://panics" {
				panic("the hook failed")
			}
			*ended = append(*ended, s.ID()+" unsubscribed "+uri)
		}})
	// The nodes hear one another as a router's do (Router.onMessage).
	stop, err := bp.Subscribe(tab.Receive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop()
		for _, s := range tab.All() {
			s.Stop()
		}
	})
	return c, tab
}

func create(t *testing.T, tab *session.Table) *session.Session {
	t.Helper()
	s, err := tab.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion, Principal: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLookupRefusesIDsNeverIssued(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	c, _ := node(t, bp, true, &ended)
	for _, id := range []string{"", "x", "../../etc", session.NewID()} {
		if _, err := c.Lookup(context.Background(), id); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("Lookup(%q) = %v; want ErrNotFound", id, err)
		}
	}
}

func TestEndRunsEndedOnceAndForgetsTheSession(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	c, tab := node(t, bp, true, &ended)
	s := create(t, tab)
	if got, err := c.Lookup(context.Background(), s.ID()); err != nil || got != s {
		t.Fatalf("Lookup = %v, %v; want the session", got, err)
	}
	if err := c.Admit(context.Background(), s, nil, "timeout"); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if err := c.End(s, "client"); err != nil {
		t.Fatal(err)
	}
	c.Finish(s, "timeout") // already stopped: no second end
	if len(ended) != 1 || ended[0] != s.ID()+" client" {
		t.Fatalf("ended %q; want one client end", ended)
	}
	if _, err := bp.LoadSession(context.Background(), s.ID()); !errors.Is(err, backplane.ErrNotFound) {
		t.Fatalf("the record survived End: %v", err)
	}
}

func TestSharedLookupSeesAnotherNodesSession(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var endedA, endedB []string
	a, tabA := node(t, bp, false, &endedA)
	b, _ := node(t, bp, false, &endedB)
	s := create(t, tabA)
	got, err := b.Lookup(context.Background(), s.ID())
	if err != nil || got == nil || got == s || got.Principal() != "alice" {
		t.Fatalf("Lookup on another node = %v, %v; want its own copy", got, err)
	}
	if err := a.End(s, "client"); err != nil { // B misses the message that says so
		t.Fatal(err)
	}
	// The copy a node holds is checked when its owner's request is admitted.
	if err := b.Admit(context.Background(), got, nil, "timeout"); !errors.Is(err, backplane.ErrNotFound) {
		t.Fatalf("Admit after the record went = %v; want ErrNotFound", err)
	}
	b.Finish(got, "timeout")
	if len(endedA) != 1 || len(endedB) != 0 {
		t.Fatalf("a session ended on A ended again on B: %q %q", endedA, endedB)
	}

	// A record the backplane lost under a session in use ends it, once,
	// with the error reason.
	s = create(t, tabA)
	if got, err = b.Lookup(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := bp.DeleteSession(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	_ = b.Admit(context.Background(), got, nil, "timeout")
	_ = a.Admit(context.Background(), s, nil, "timeout")
	if len(endedB) != 1 || endedB[0] != s.ID()+" error" || len(endedA) != 1 {
		t.Fatalf("a lost session ended %q on B, %q on A; want one error end", endedB, endedA)
	}
}

func TestReaches(t *testing.T) {
	tests := []struct {
		m         backplane.Message
		principal string
		want      bool
	}{
		{backplane.Message{}, "", true},
		{backplane.Message{}, "alice", true},
		{backplane.Message{Targeted: true, Principal: "alice"}, "alice", true},
		{backplane.Message{Targeted: true, Principal: "alice"}, "bob", false},
		{backplane.Message{Targeted: true}, "alice", false},
		{backplane.Message{Targeted: true}, "", true},
	}
	for _, tt := range tests {
		if got := session.Reaches(&tt.m, tt.principal); got != tt.want {
			t.Errorf("Reaches(%+v, %q) = %v; want %v", tt.m, tt.principal, got, tt.want)
		}
	}
}

func TestNotifyAsksAccessOnlyOfSubscribersWithAStream(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	c, tab := node(t, bp, true, &ended)
	s := create(t, tab)
	if err := s.Subscribe("a://b", true); err != nil {
		t.Fatal(err)
	}
	asked := 0
	allowed := func(any) bool { asked++; return true }
	c.Notify(&backplane.Message{Kind: backplane.KindNotify, Method: mcp.NotificationToolsChanged}, allowed)
	c.Notify(&backplane.Message{Kind: backplane.KindNotify, Method: mcp.NotificationResourceUpdated, URI: "a://b"}, allowed)
	if asked != 0 {
		t.Fatalf("access was checked %d times for a session with no GET stream here", asked)
	}
}

func TestRefusal(t *testing.T) {
	if got := session.Refusal(fmt.Errorf("load: %w", backplane.ErrNotFound)); got != refusal.SessionNotFound {
		t.Errorf("an unknown session is refused with %v", got)
	}
	if got := session.Refusal(errors.New("redis down")); got != refusal.StorageUnavailable {
		t.Errorf("a backplane failure is refused with %v", got)
	}
}

func TestFollowers(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	local, tab := node(t, bp, true, &ended)
	s := create(t, tab)
	create(t, tab) // not subscribed
	if err := s.Follow("orders", true); err != nil {
		t.Fatal(err)
	}
	if got := local.Followers("orders"); len(got) != 1 || got[0] != s {
		t.Fatalf("in process: %v; want the subscribed session, stream or not", got)
	}

	// On a shared backplane, a session subscribed through another node
	// takes the event where its GET stream is open, and only there.
	a, tabA := node(t, bp, false, &ended)
	b, _ := node(t, bp, false, &ended)
	s = create(t, tabA)
	onB, err := b.Lookup(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := onB.Follow("prices", true); err != nil {
		t.Fatal(err)
	}
	if got := a.Followers("prices"); len(got) != 0 {
		t.Fatalf("no GET stream on A, yet A takes the event: %v", got)
	}
	s.GetStream()
	if got := a.Followers("prices"); len(got) != 1 || got[0] != s {
		t.Fatalf("GET stream on A: %v", got)
	}
}

func TestShutdown(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var endedLocal, endedShared []string
	local, tabL := node(t, bp, true, &endedLocal)
	s := create(t, tabL)
	local.Shutdown("shutdown")
	if len(endedLocal) != 1 || endedLocal[0] != s.ID()+" shutdown" || tabL.Len() != 0 {
		t.Fatalf("in process: ended %q, %d held; want the session ended", endedLocal, tabL.Len())
	}
	shared, tabS := node(t, bp, false, &endedShared)
	s = create(t, tabS)
	shared.Shutdown("shutdown")
	if len(endedShared) != 0 || tabS.Len() != 0 {
		t.Fatalf("shared: ended %q, %d held; want the session let go, not ended", endedShared, tabS.Len())
	}
	if _, err := bp.LoadSession(context.Background(), s.ID()); err != nil {
		t.Fatalf("shared: the record went: %v", err)
	}
}

func TestPublishReachesEveryNode(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	c, _ := node(t, bp, false, &ended)
	got := make(chan *backplane.Message, 1)
	stop, err := bp.Subscribe(func(m *backplane.Message) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := c.Publish("orders", map[string]int{"id": 7}); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m.Kind != backplane.KindTopic || m.URI != "orders" || string(m.Data) != `{"id":7}` {
		t.Fatalf("published %+v", m)
	}
	if err := c.Publish("orders", func() {}); err == nil || !strings.Contains(err.Error(), `publish on "orders"`) {
		t.Fatalf("data that does not encode: %v", err)
	}
}

func TestEndRunsTheUnsubscribeHookForWhatIsLeft(t *testing.T) {
	bp := backplane.NewMemory()
	defer bp.Close()
	var ended []string
	c, tab := node(t, bp, true, &ended)
	s := create(t, tab)
	for _, uri := range []string{"app://panics", "app://a"} {
		if err := s.Subscribe(uri, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.End(s, "client"); err != nil {
		t.Fatal(err)
	}
	if want := []string{s.ID() + " unsubscribed app://a", s.ID() + " client"}; !slices.Equal(ended, want) {
		t.Fatalf("ended %q; want %q", ended, want)
	}
}
