package redisbp

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// testRateStore checks a bucket shared by two nodes: the burst is taken
// once across both, the wait is the time a token takes to come back, the
// key expires when the bucket would be full again, and concurrent takes
// never give more than the burst.
func testRateStore(t *testing.T, a, b *Backplane) {
	ctx := context.Background()
	sa, sb := a.RateStore(), b.RateStore()
	const rate = 0.001 // a token every 1,000 s: nothing comes back during the test
	for i := range 3 {
		s := sa
		if i%2 == 1 {
			s = sb
		}
		if ok, _, err := s.Take(ctx, "principal:ada", rate, 3); !ok || err != nil {
			t.Fatalf("take %d of a burst of 3: %v %v", i+1, ok, err)
		}
	}
	ok, wait, err := sb.Take(ctx, "principal:ada", rate, 3)
	if ok || err != nil {
		t.Fatalf("4th take of a burst of 3, on the other node: %v %v, want refused", ok, err)
	}
	if wait <= 999*time.Second || wait > 1000*time.Second {
		t.Errorf("wait %v, want just under 1,000 s (one token at %v/s)", wait, rate)
	}
	if ok, _, _ := sa.Take(ctx, "principal:bob", rate, 3); !ok {
		t.Error("another key shares ada's bucket")
	}
	key := a.prefix + ":rate:{principal:ada}"
	ttl, err := a.client.PTTL(ctx, key).Result()
	if err != nil || ttl <= 2999*time.Second || ttl > 3000*time.Second {
		t.Errorf("bucket key %s: TTL %v (%v), want the 3,000 s until it is full again", key, ttl, err)
	}

	// 40 concurrent takes on two nodes from a burst of 10 get 10.
	var got atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		s := sa
		if i%2 == 1 {
			s = sb
		}
		wg.Go(func() {
			if ok, _, err := s.Take(ctx, "ip:192.0.2.1", rate, 10); ok && err == nil {
				got.Add(1)
			}
		})
	}
	wg.Wait()
	if n := got.Load(); n != 10 {
		t.Errorf("40 concurrent takes from a burst of 10 got %d", n)
	}
	if _, _, err := sa.Take(ctx, "k", 0, 1); err == nil {
		t.Error("a rate of 0 was accepted")
	}
}

func TestRateStore(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	testRateStore(t, newNode(t, srv.URL, Prefix("rl")), newNode(t, srv.URL, Prefix("rl")))
}

func TestRateStoreCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	t.Parallel()
	c := redistest.StartCluster(t)
	// A prefix with a hash tag of its own would put every bucket on one
	// slot without the bucket's tag.
	testRateStore(t, newNode(t, c.URL, Prefix("{rl}")), newNode(t, c.URL, Prefix("{rl}")))
}

// TestRateStoreRefills: a bucket taken empty gives a token again once its
// wait passed, on Redis's clock.
func TestRateStoreRefills(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s := newNode(t, srv.URL).RateStore()
	ctx := context.Background()
	const rate = 50 // a token every 20 ms
	if ok, _, _ := s.Take(ctx, "k", rate, 1); !ok {
		t.Fatal("first take refused")
	}
	ok, wait, err := s.Take(ctx, "k", rate, 1)
	if ok || err != nil || wait <= 0 || wait > 20*time.Millisecond {
		t.Fatalf("second take: %v %v %v, want refused with a wait of at most 20ms", ok, wait, err)
	}
	// Not a sleep as synchronization: the condition is the bucket's own
	// answer, which must turn within a few waits.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok, wait, err := s.Take(ctx, "k", rate, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bucket never refilled")
		}
		time.Sleep(wait)
	}
}
