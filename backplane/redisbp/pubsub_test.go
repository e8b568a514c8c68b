package redisbp

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
)

// TestStop checks that handle is not called once stop has returned,
// while messages keep coming.
func TestStop(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newNode(t, srv.URL), newNode(t, srv.URL)
	var stopped, lateCalls, calls atomic.Int32
	stop, err := b.Subscribe(func(*backplane.Message) {
		calls.Add(1)
		if stopped.Load() == 1 {
			lateCalls.Add(1)
		}
		time.Sleep(time.Millisecond) // a slow handler, so messages queue up
	})
	if err != nil {
		t.Fatal(err)
	}
	sub := subscriptions(b)[0]
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			_ = a.Publish(ctx, &backplane.Message{Kind: backplane.KindWake})
		}
	})
	mcptest.WaitUntil(t, "10 messages handled", func() bool { return calls.Load() >= 10 })
	stop()
	stopped.Store(1)
	stop() // a second stop is harmless
	// Whatever the subscription had queued, it has handled once its
	// goroutine ended: count the late calls then, not after a guessed time.
	select {
	case <-sub.done:
	case <-mcptest.Context(t).Done():
		t.Fatal("the subscription's goroutine outlived stop until the test's deadline")
	}
	cancel()
	wg.Wait()
	if n := lateCalls.Load(); n != 0 {
		t.Errorf("handle called %d times after stop returned", n)
	}
}

// TestClose checks that Close ends the subscriptions, leaving no
// goroutine behind (TestMain checks), and refuses new ones.
func TestClose(t *testing.T) {
	srv := redistest.Start(t)
	b, err := New(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := b.Subscribe(func(*backplane.Message) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(func(*backplane.Message) {}); err != nil {
		t.Fatal(err)
	}
	subs := subscriptions(b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// Close has ended the subscriptions' goroutines, so no message can
	// reach their handlers any more.
	for i, s := range subs {
		select {
		case <-s.done:
		default:
			t.Errorf("subscription %d still runs after Close returned", i)
		}
	}
	stop() // after Close, harmless
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := b.Subscribe(func(*backplane.Message) {}); !errors.Is(err, errClosed) {
		t.Errorf("Subscribe after Close: %v", err)
	}
}

// subscriptions returns b's running subscriptions.
func subscriptions(b *Backplane) []*subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	var subs []*subscription
	for s := range b.subs {
		subs = append(subs, s)
	}
	return subs
}

// TestNewFromClientLeavesClientOpen checks that Close stops the
// subscriptions but leaves the caller's client open.
func TestNewFromClientLeavesClientOpen(t *testing.T) {
	srv := redistest.Start(t)
	owner := newNode(t, srv.URL)
	b := NewFromClient(owner.client, Prefix("p"), Channel("elsewhere"))
	if _, err := b.Subscribe(func(*backplane.Message) {}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := owner.client.Ping(context.Background()).Err(); err != nil {
		t.Errorf("the caller's client after Close: %v", err)
	}
	if n, err := owner.client.PubSubNumSub(context.Background(), "elsewhere").Result(); err != nil || n["elsewhere"] != 0 {
		t.Errorf("subscribers left on the channel: %v %v", n, err)
	}
}
