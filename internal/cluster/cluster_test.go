package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/cluster"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// node returns the sessions of one node on bp, recording every end.
func node(t *testing.T, bp backplane.Backplane, local bool, ended *[]string) (*cluster.Sessions, *session.Table) {
	t.Helper()
	streams := stream.NewNode(stream.Config{Backplane: bp, Local: local, BufferBytes: 1 << 20,
		WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	tab := session.NewTable(session.Config{Backplane: bp, Local: local, Streams: streams, Timeout: time.Minute,
		Node: "n1", Log: zerolog.Nop(), Publish: func(*backplane.Message) {}})
	c := cluster.New(cluster.Config{Backplane: bp, Local: local, Sessions: tab, Streams: streams, Log: zerolog.Nop(),
		Ended: func(s *session.Session, reason string) { *ended = append(*ended, s.ID()+" "+reason) }})
	t.Cleanup(func() {
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
	_, tabA := node(t, bp, false, &endedA)
	b, _ := node(t, bp, false, &endedB)
	s := create(t, tabA)
	got, err := b.Lookup(context.Background(), s.ID())
	if err != nil || got == nil || got == s || got.Principal() != "alice" {
		t.Fatalf("Lookup on another node = %v, %v; want its own copy", got, err)
	}
	if _, err := bp.DeleteSession(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	// The copy a node holds is checked when its owner's request is admitted.
	if err := b.Admit(context.Background(), got, nil, "timeout"); !errors.Is(err, backplane.ErrNotFound) {
		t.Fatalf("Admit after the record went = %v; want ErrNotFound", err)
	}
	b.Finish(got, "timeout")
	b.Finish(got, "timeout")
	if len(endedB) != 0 {
		t.Fatalf("a session Admit already stopped ended again: %q", endedB)
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
		if got := cluster.Reaches(&tt.m, tt.principal); got != tt.want {
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
	if got := cluster.Refusal(fmt.Errorf("load: %w", backplane.ErrNotFound)); got != refusal.SessionNotFound {
		t.Errorf("an unknown session is refused with %v", got)
	}
	if got := cluster.Refusal(errors.New("redis down")); got != refusal.StorageUnavailable {
		t.Errorf("a backplane failure is refused with %v", got)
	}
}
