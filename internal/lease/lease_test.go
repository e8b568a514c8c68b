package lease

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a backplane.Leases that reports every heartbeat.
type recorder struct {
	*backplane.Memory
	beats chan []string
}

func (r recorder) Heartbeat(ctx context.Context, node string, ttl time.Duration, work []string) error {
	slices.Sort(work)
	select {
	case r.beats <- work:
	default:
	}
	return r.Memory.Heartbeat(ctx, node, ttl, work)
}

// TestHoldIsRecorded: work held is recorded a moment after it changes,
// and work released is forgotten.
func TestHoldIsRecorded(t *testing.T) {
	rec := recorder{Memory: backplane.NewMemory(), beats: make(chan []string, 64)}
	k := New(Config{Leases: rec, Node: "n1", TTL: time.Hour, Down: func(context.Context, string, []string) bool { return true }})
	k.Start()
	defer k.Stop()
	want := func(entries ...string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-rec.beats:
				if slices.Equal(got, entries) {
					return
				}
			case <-deadline:
				t.Fatalf("no heartbeat recorded %q", entries)
			}
		}
	}
	a := k.Hold(Request("s1", "p1", "1"))
	want(Request("s1", "p1", "1"))
	b := k.Hold(Task("t1"))
	want(Request("s1", "p1", "1"), Task("t1"))
	a()
	a() // once
	want(Task("t1"))
	b()
	want()
}

// TestDeadNodeTakenOver: a node that stops renewing is taken over by
// another, which gets its work, once.
func TestDeadNodeTakenOver(t *testing.T) {
	m := backplane.NewMemory()
	downs := make(chan []string, 4)
	dead := New(Config{Leases: m, Node: "dead", TTL: 30 * time.Millisecond})
	dead.Hold(Request("s1", "p1", `"x"`))
	dead.renew() // its last heartbeat, then it dies (it never runs)
	live := New(Config{Leases: m, Node: "live", TTL: 90 * time.Millisecond, Down: func(_ context.Context, node string, work []string) bool {
		if node == "dead" {
			downs <- work
		}
		return true
	}})
	live.Start()
	defer live.Stop()
	select {
	case work := <-downs:
		if w, ok := Parse(work[0]); len(work) != 1 || !ok || w.Session != "s1" || w.Stream != "p1" || w.ID != `"x"` {
			t.Fatalf("the dead node's work: %q %+v", work, w)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the dead node was not taken over")
	}
	select {
	case work := <-downs:
		t.Fatalf("taken over twice: %q", work)
	case <-time.After(300 * time.Millisecond): // three more takeover rounds
	}
}

// flaky is a backplane.Leases whose heartbeats fail while down is set,
// as while the backplane is out of reach, and that counts the ones it
// took.
type flaky struct {
	*backplane.Memory
	down  atomic.Bool
	taken atomic.Int64
}

func (f *flaky) Heartbeat(ctx context.Context, node string, ttl time.Duration, work []string) error {
	if f.down.Load() {
		return errors.New("unreachable")
	}
	f.taken.Add(1)
	return f.Memory.Heartbeat(ctx, node, ttl, work)
}

// TestNoTakeOverRightAfterAnOutage: after the backplane was out of
// reach, when every lease lapsed, a node takes over others only once it
// renewed its own for a whole TTL, so that live nodes have renewed
// theirs by then.
func TestNoTakeOverRightAfterAnOutage(t *testing.T) {
	f := &flaky{Memory: backplane.NewMemory()}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Memory.Heartbeat(context.Background(), "gone", time.Millisecond, []string{Task("t1")}))
	f.down.Store(true)
	var atTakeOver atomic.Int64
	downs := make(chan string, 1)
	k := New(Config{Leases: f, Node: "n1", TTL: 60 * time.Millisecond, Down: func(_ context.Context, node string, _ []string) bool {
		atTakeOver.Store(f.taken.Load())
		downs <- node
		return true
	}})
	k.Start() // its first renewal fails
	defer k.Stop()
	f.down.Store(false) // the backplane is back
	select {
	case node := <-downs:
		if node != "gone" || atTakeOver.Load() < renewals {
			t.Fatalf("took over %q after %d renewals, want gone after at least %d", node, atTakeOver.Load(), renewals)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lapsed node was not taken over")
	}
}
