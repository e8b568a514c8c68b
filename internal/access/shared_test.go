package access

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane"
)

func newShared(q backplane.Quotas, ttl time.Duration) *Shared {
	return NewShared(SharedConfig{Quotas: q, Node: "n1", TTL: ttl, Log: zerolog.Nop(),
		Context: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Second)
		}})
}

// Two nodes count one caller's streams together; a release frees a slot
// on the other node, and each node's renewer runs only while it holds
// something.
func TestSharedHold(t *testing.T) {
	defer goleak.VerifyNone(t)
	m := backplane.NewMemory()
	a, b := newShared(m, time.Minute), newShared(m, time.Minute)
	b.node = "n2"
	r1, ok, err := a.Hold("streams", "principal:ada", 2)
	if !ok || err != nil {
		t.Fatalf("first: %v %v", ok, err)
	}
	r2, ok, _ := b.Hold("streams", "principal:ada", 2)
	if !ok {
		t.Fatal("second, on the other node, refused")
	}
	if _, ok, _ := a.Hold("streams", "principal:ada", 2); ok {
		t.Fatal("a third past the limit of 2")
	}
	rl, ok, _ := a.Hold("listeners", "principal:ada", 2)
	if !ok {
		t.Fatal("another kind shares the count")
	}
	r1()
	r1() // a second call lets nothing more go
	r3, ok, _ := b.Hold("streams", "principal:ada", 2)
	if !ok {
		t.Fatal("a slot let go on one node is not free on the other")
	}
	if _, ok, _ := b.Hold("streams", "principal:ada", 2); ok {
		t.Fatal("a double release freed two slots")
	}
	r2()
	r3()
	a.mu.Lock()
	running := a.stop != nil // a still holds a listener
	a.mu.Unlock()
	b.mu.Lock()
	stopped := b.stop == nil
	b.mu.Unlock()
	if !running || !stopped {
		t.Errorf("renewers: a running %v (holds a listener), b stopped %v (holds nothing)", running, stopped)
	}
	rl()
}

// A task counts for its ttl, unrenewed, and a session while it exists.
func TestSharedHoldForAndSessions(t *testing.T) {
	m := backplane.NewMemory()
	s := newShared(m, time.Minute)
	if _, ok, _ := s.HoldFor("tasks", "ip:192.0.2.1", "t1", time.Hour, 1); !ok {
		t.Fatal("t1 refused")
	}
	if _, ok, _ := s.HoldFor("tasks", "ip:192.0.2.1", "t2", time.Hour, 1); ok {
		t.Fatal("t2 past the limit of 1")
	}
	ctx := context.Background()
	if err := m.CreateSession(ctx, &backplane.Session{ID: "s1"}, 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.HoldSession("principal:ada", "s1", 1); !ok || err != nil {
		t.Fatalf("s1: %v %v", ok, err)
	}
	if err := m.CreateSession(ctx, &backplane.Session{ID: "s2"}, 0); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HoldSession("principal:ada", "s2", 1); ok {
		t.Fatal("s2 past the limit of 1")
	}
	if _, err := m.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HoldSession("principal:ada", "s2", 1); !ok {
		t.Fatal("s2 refused after s1 was deleted")
	}
}
