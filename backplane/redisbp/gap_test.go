package redisbp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// awaitGap waits for a backplane.KindGap message on got, passing over
// others.
func awaitGap(t *testing.T, got <-chan *backplane.Message, when string) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m := <-got:
			if m.Kind == backplane.KindGap {
				return
			}
		case <-deadline:
			t.Fatalf("no gap message %s", when)
		}
	}
}

// TestResubscribeTellsOfGap breaks a node's subscription by restarting
// Redis: once go-redis subscribes again, the handler is told that
// messages may have been lost, before the messages that follow.
func TestResubscribeTellsOfGap(t *testing.T) {
	srv := redistest.Start(t)
	b := newNode(t, srv.URL)
	got := subscribe(t, b)
	receive(t, b, got, "before the outage")
	srv.Stop()
	srv.Restart(t)
	awaitGap(t, got, "after the subscription came back")
	receive(t, b, got, "after the gap")
}

// TestClusterResubscribeTellsOfGap is TestResubscribeTellsOfGap on a
// Redis Cluster, whose sharded subscriptions each come back on their own.
func TestClusterResubscribeTellsOfGap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	c := redistest.StartCluster(t)
	b := newNode(t, c.URL)
	got := subscribe(t, b)
	receive(t, b, got, "before the outage")
	c.Stop()
	c.Restart(t)
	awaitGap(t, got, "after the subscriptions came back")
}

// TestFailedPublishTellsOfGap has Redis stall one node's publish (CLIENT
// PAUSE) past its deadline while another node's subscription stays up:
// once Redis takes messages again, the other node is told that a message
// may be missing.
func TestFailedPublishTellsOfGap(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newNode(t, srv.URL), newNode(t, srv.URL)
	got := subscribe(t, b)
	receive(t, a, got, "before the pause")

	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	if err := admin.Do(context.Background(), "CLIENT", "PAUSE", "60000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err := a.Publish(ctx, &backplane.Message{Kind: backplane.KindNotify, URI: "during the pause"})
	cancel()
	if err == nil {
		t.Fatal("a publish to a paused Redis succeeded")
	}
	if err := admin.Do(context.Background(), "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	awaitGap(t, got, "after the failed publish")
}

// TestBreakerFailsFast has Redis accept connections and never answer:
// the first call waits out its read timeout, and the calls after it fail
// at once with ErrUnavailable instead of each waiting as long.
func TestBreakerFailsFast(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: blackHole(t), ReadTimeout: 300 * time.Millisecond, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	b := NewFromClient(c)
	defer b.Close()
	ev := backplane.Event{Seq: 1, Data: []byte("x")}
	if err := b.Append(context.Background(), "s", "st", ev, 0); err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("the first append to an unresponsive Redis: %v, want its timeout", err)
	}
	for i := range 20 {
		ev.Seq++
		if err := b.Append(context.Background(), "s", "st", ev, 0); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("append %d after a timeout: %v, want ErrUnavailable", i, err)
		}
		if _, _, err := b.Events(context.Background(), "s", "st", 0); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("events %d after a timeout: %v, want ErrUnavailable", i, err)
		}
		if err := b.Publish(context.Background(), &backplane.Message{Kind: backplane.KindWake}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("publish %d after a timeout: %v, want ErrUnavailable", i, err)
		}
	}
}

// TestBreakerRecovers stops Redis, so that appends fail fast, and
// restarts it: the background probe lets appends through again without a
// caller having to fail first.
func TestBreakerRecovers(t *testing.T) {
	srv := redistest.Start(t)
	b := newNode(t, srv.URL)
	if err := setUp(t, b); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv.Stop()
	if err := b.Append(ctx, "s", "st", backplane.Event{Seq: 2}, 0); err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("append with Redis down: %v, want the refusal", err)
	}
	if err := b.Append(ctx, "s", "st", backplane.Event{Seq: 2}, 0); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("append after a refusal: %v, want ErrUnavailable", err)
	}
	srv.Restart(t)
	// Only the probe can close the breaker while no call goes through:
	// the window would let one through after BreakerWindow.
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for b.breaker.until.Load() != 0 {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the breaker stayed open after Redis came back")
		}
	}
	if err := setUp(t, b); err != nil {
		t.Fatalf("after the probe closed the breaker: %v", err)
	}
}

// TestClusterBreaker stops a Redis Cluster under a backplane: after the
// first append waited out the client's retries, appends fail at once,
// and once the Cluster is back they work again.
func TestClusterBreaker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	c := redistest.StartCluster(t)
	b := newNode(t, c.URL)
	if err := setUp(t, b); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.Stop()
	ev := backplane.Event{Seq: 2, Data: []byte("x")}
	if err := b.Append(ctx, "s", "st", ev, 0); err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("append with the Cluster down: %v, want the client's error", err)
	}
	for i := range 100 {
		ev.Seq++
		if err := b.Append(ctx, "s", "st", ev, 0); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("append %d after a failure: %v, want ErrUnavailable", i, err)
		}
	}
	c.Restart(t)
	recovered(t, b)
}
