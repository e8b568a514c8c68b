package integration

import (
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
)

// underLoad has three clients stream 100-event calls of one session
// through nodes, dropping and resuming at random, while fault runs; they
// go on for a few calls after it returned. Each call must end with
// every event once and in order, or with an explicit error (an HTTP
// error, a notice of lost messages); never with a silent gap, a repeat
// or a hang. It returns how many calls completed after the fault.
func underLoad(t *testing.T, base *mcptest.Client, nodes []*node, fault func()) (completeAfter int) {
	t.Helper()
	var faulted atomic.Bool
	var mu sync.Mutex
	var complete, told, after int
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for run := 0; ; run++ {
				done := faulted.Load()
				got, err := dropAndResume(t, base, nodes, rng, w*10000+run)
				for i, n := range got {
					if n != i+1 {
						t.Errorf("worker %d run %d: event %d is %d (a gap or a repeat without notice): %v", w, run, i+1, n, got)
						return
					}
				}
				mu.Lock()
				switch {
				case err == nil && len(got) == 100:
					complete++
					if done {
						completeAfter++
					}
				case err != nil:
					told++
				default:
					t.Errorf("worker %d run %d: answered after %d of 100 events, without notice", w, run, len(got))
				}
				if done {
					after++
				}
				enough := after >= 6
				mu.Unlock()
				if enough || t.Failed() {
					return
				}
			}
		})
	}
	fault()
	faulted.Store(true)
	wg.Wait()
	t.Logf("%d calls complete, %d told of an error; %d calls after the fault, %d complete", complete, told, after, completeAfter)
	return completeAfter
}

// TestClusterMasterFailoverUnderLoad kills the Redis Cluster master that
// holds a busy session, waits until a replica took over, then restarts
// the old master; calls go on completing.
func TestClusterMasterFailoverUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 2, streamer)
	base := join(t, nodes[0])
	master := c.MasterOf(t, "{"+base.SessionID+"}")
	if underLoad(t, base, nodes, func() { c.Failover(t, master) }) == 0 {
		t.Error("no call completed after the failover")
	}
	// The old master comes back, as a replica of the new one.
	c.Rejoin(t, master)
}

// TestRedisKillUnderLoad kills the one Redis of two nodes while a
// session streams, and restarts it: with an append-only file the session
// goes on; without, its clients are told (404, start again) and a new
// session works.
func TestRedisKillUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("kills Redis under load; skipped with -short")
	}
	t.Run("persistent", func(t *testing.T) {
		redis := redistest.StartPersistent(t)
		nodes := newCluster(t, redis.URL, 2, streamer)
		base := join(t, nodes[0])
		if underLoad(t, base, nodes, func() { redis.Stop(); redis.Restart(t) }) == 0 {
			t.Error("no call completed after Redis came back with its data")
		}
	})
	t.Run("empty", func(t *testing.T) {
		redis := redistest.Start(t)
		nodes := newCluster(t, redis.URL, 2, streamer)
		base := join(t, nodes[0])
		underLoad(t, base, nodes, func() { redis.Stop(); redis.Restart(t) })
		// The session went with Redis's data; a new one works.
		fresh := join(t, nodes[1])
		if res, _, err := on(t, fresh, nodes[0]).CallTool(ctx(t), "test_simple_text", nil); err != nil || res.IsError {
			t.Fatalf("a new session after Redis came back empty: %+v %v", res, err)
		}
	})
}

// TestClusterSlotMigrationUnderLoad moves the slot of a busy session to
// another master, a key at a time, as a live resharding does, while its
// clients stream.
func TestClusterSlotMigrationUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 2, streamer)
	base := join(t, nodes[0])
	if underLoad(t, base, nodes, func() { c.Migrate(t, "{"+base.SessionID+"}").Finish(t) }) == 0 {
		t.Error("no call completed after the migration")
	}
}

// TestResumeOfSessionLostWithRedis resumes a stream, on a node that
// served the session a moment ago, after Redis restarted without its
// data: the session went with the stream, so the client is told to start
// again (404), not that it named no stream (400).
func TestResumeOfSessionLostWithRedis(t *testing.T) {
	redis := redistest.Start(t)
	nodes, a, last := endedEarly(t, redis.URL)
	// B serves the session: a call, then a notification that gives the
	// call's id back, after which B has nothing to tell Redis for a while.
	b := on(t, a, nodes[1])
	if _, err := b.Call(ctx(t), "ping", nil); err != nil {
		t.Fatal(err)
	}
	if status, err := b.Notify(ctx(t), "notifications/roots/list_changed", nil); err != nil || status != http.StatusAccepted {
		t.Fatalf("a notification through B: %d %v", status, err)
	}
	redis.Stop()
	redis.Restart(t)
	req, _ := b.NewRequest(ctx(t), http.MethodGet, nil)
	req.Header.Set("Last-Event-ID", last)
	hr, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	if hr.StatusCode != http.StatusNotFound {
		t.Fatalf("resume of a session Redis lost: HTTP %d %s, want 404", hr.StatusCode, body)
	}
}
