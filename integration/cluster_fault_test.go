package integration

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestClusterMasterFailoverUnderLoad kills the Redis Cluster master that
// holds a busy session while clients stream 100-event calls through two
// nodes, dropping and resuming at random, and waits until a replica took
// over, then restarts the old master. Each call ends: with every event once and in order, or with an
// explicit error (an HTTP error on resume, a notice of lost messages);
// never with a silent gap, a repeat or a hang.
func TestClusterMasterFailoverUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 2, streamer)
	base := join(t, nodes[0])
	master := c.MasterOf(t, "{"+base.SessionID+"}")

	var failedOver atomic.Bool
	var mu sync.Mutex
	var complete, told, after int
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for run := 0; ; run++ {
				done := failedOver.Load()
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
	newMaster := c.Failover(t, master)
	failedOver.Store(true)
	wg.Wait()
	// The old master comes back, as a replica of the new one.
	c.Rejoin(t, master)
	t.Logf("failover %s -> %s: %d calls complete, %d told of an error, %d after the failover", master.Addr, newMaster.Addr, complete, told, after)
	if after == 0 || complete == 0 {
		t.Error("no call completed after the failover")
	}
}
