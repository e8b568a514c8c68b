package redisbp

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestConcurrentAppend appends from many goroutines on two nodes to one
// stream, with and without a limit, and checks that every event is kept
// or accounted lost, and that the size counter matches the events held.
func TestConcurrentAppend(t *testing.T) {
	const workers, perWorker = 16, 50
	ctx := context.Background()
	srv := redistest.Start(t)
	nodes := []*Backplane{newNode(t, srv.URL), newNode(t, srv.URL)}
	for _, limit := range []int{0, 500} {
		if err := nodes[0].CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				b := nodes[w%2]
				for i := range perWorker {
					seq := uint64(w*perWorker + i + 1)
					data := make([]byte, int(seq%7)) // every base64 padding
					if err := b.Append(ctx, "s", "st", backplane.Event{Seq: seq, Data: data}, limit); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		evs, lost, err := nodes[1].Events(ctx, "s", "st", 0)
		if err != nil {
			t.Fatal(err)
		}
		size, seen := 0, map[uint64]bool{}
		for _, ev := range evs {
			size += len(ev.Data)
			if seen[ev.Seq] {
				t.Errorf("limit %d: seq %d twice", limit, ev.Seq)
			}
			seen[ev.Seq] = true
		}
		if got := metaSize(t, nodes[0], "s", "st"); got != size {
			t.Errorf("limit %d: size counter %d, events hold %d bytes", limit, got, size)
		}
		switch {
		case limit == 0 && (len(evs) != workers*perWorker || lost):
			t.Errorf("no limit: %d events, lost=%v; want all %d", len(evs), lost, workers*perWorker)
		case limit > 0 && (size > limit || !lost):
			t.Errorf("limit %d: %d bytes held, lost=%v", limit, size, lost)
		}
		if _, err := nodes[0].DeleteSession(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentDelete deletes a session from many goroutines on two
// nodes at once: exactly one must see that it existed.
func TestConcurrentDelete(t *testing.T) {
	const rounds, workers = 20, 16
	ctx := context.Background()
	srv := redistest.Start(t)
	nodes := []*Backplane{newNode(t, srv.URL), newNode(t, srv.URL)}
	for r := range rounds {
		if err := nodes[0].CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := nodes[0].Append(ctx, "s", "st", backplane.Event{Seq: 1}, 0); err != nil {
			t.Fatal(err)
		}
		var existed atomic.Int32
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				ok, err := nodes[w%2].DeleteSession(ctx, "s")
				if err != nil {
					t.Error(err)
				}
				if ok {
					existed.Add(1)
				}
			})
		}
		wg.Wait()
		if n := existed.Load(); n != 1 {
			t.Fatalf("round %d: %d callers saw the session exist, want 1", r, n)
		}
		if n, err := nodes[0].client.Exists(ctx, nodes[0].keys("s").events(), nodes[0].keys("s").meta()).Result(); err != nil || n != 0 {
			t.Fatalf("round %d: stream left after delete: %v %v", r, n, err)
		}
	}
}
