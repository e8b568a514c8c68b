package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
)

// call is one method of the backplane, called for its error.
type call struct {
	name string
	do   func(ctx context.Context, b *Backplane) error
}

// calls are every method that talks to Redis.
var calls = []call{
	{"CreateSession", func(ctx context.Context, b *Backplane) error {
		return b.CreateSession(ctx, &backplane.Session{ID: "s2"}, time.Minute)
	}},
	{"LoadSession", func(ctx context.Context, b *Backplane) error {
		_, err := b.LoadSession(ctx, "s")
		return err
	}},
	{"TouchSession", func(ctx context.Context, b *Backplane) error {
		return b.TouchSession(ctx, "s", time.Minute)
	}},
	{"SetField", func(ctx context.Context, b *Backplane) error {
		return b.SetField(ctx, "s", backplane.FieldLogLevel, json.RawMessage(`2`))
	}},
	{"Append", func(ctx context.Context, b *Backplane) error {
		return b.Append(ctx, "s", "st", backplane.Event{Seq: 2, Data: []byte("x")}, 100)
	}},
	{"Events", func(ctx context.Context, b *Backplane) error {
		_, _, err := b.Events(ctx, "s", "st", 0)
		return err
	}},
	{"DropStream", func(ctx context.Context, b *Backplane) error {
		return b.DropStream(ctx, "s", "other")
	}},
	{"Claim", func(ctx context.Context, b *Backplane) error {
		_, err := b.Claim(ctx, "k", time.Minute)
		return err
	}},
	{"Release", func(ctx context.Context, b *Backplane) error {
		return b.Release(ctx, "k")
	}},
	{"Publish", func(ctx context.Context, b *Backplane) error {
		return b.Publish(ctx, &backplane.Message{Kind: backplane.KindWake})
	}},
	{"DeleteSession", func(ctx context.Context, b *Backplane) error {
		_, err := b.DeleteSession(ctx, "s")
		return err
	}},
}

// setUp gives b a session "s" with an event in stream "st".
func setUp(t *testing.T, b *Backplane) error {
	t.Helper()
	ctx := context.Background()
	if err := b.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
		return err
	}
	return b.Append(ctx, "s", "st", backplane.Event{Seq: 1, Data: []byte("x")}, 100)
}

// TestRedisDown stops Redis under a running backplane, checks that every
// call fails promptly with an error of its own, then restarts Redis and
// checks that calls work again and the subscription made before the
// outage receives messages again.
func TestRedisDown(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	b := newNode(t, srv.URL)
	got := subscribe(t, b)
	if err := setUp(t, b); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if err := c.do(ctx, b); err != nil {
			t.Fatalf("%s with Redis up: %v", c.name, err)
		}
	}
	receive(t, b, got, "before the outage")

	// A call fails promptly when it dials no more than once per try: no
	// dial retries with pauses between them, no retries beyond MaxRetries.
	// The dials are counted on a node of their own, without the
	// subscription that redials on its own while Redis is down, and with
	// a pool larger than the test's dials, whose failures would otherwise
	// make go-redis stop dialing and probe with a dial a second instead.
	counted := newNode(t, srv.URL+"?pool_size=1000")
	if err := setUp(t, counted); err != nil {
		t.Fatal(err)
	}
	dials := &dialCounter{}
	counted.client.AddHook(dials)
	srv.Stop()
	for _, c := range calls {
		dials.n.Store(0)
		err := c.do(ctx, counted)
		switch n := dials.n.Load(); {
		case err == nil || errors.Is(err, backplane.ErrNotFound):
			t.Errorf("%s with Redis down: %v, want a failure", c.name, err)
		case !strings.HasPrefix(err.Error(), "redisbp: "):
			t.Errorf("%s with Redis down: %q, want a redisbp error", c.name, err)
		case n > MaxRetries+1:
			t.Errorf("%s with Redis down dialed %d times, want at most %d (one per try)", c.name, n, MaxRetries+1)
		}
		t.Logf("%s with Redis down: %v after %d dials", c.name, err, dials.n.Load())
	}
	err := b.Publish(ctx, &backplane.Message{Kind: backplane.KindWake})
	if err == nil || !strings.Contains(err.Error(), "publish") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("publish with Redis down: %v, want it to say it could not publish and why", err)
	}
	if _, err := b.Subscribe(func(*backplane.Message) {}); err == nil {
		t.Error("Subscribe with Redis down succeeded")
	}

	srv.Restart(t)
	recovered(t, b)
	for _, c := range calls {
		if err := c.do(ctx, b); err != nil {
			t.Errorf("%s after the restart: %v", c.name, err)
		}
	}
	receive(t, b, got, "after the restart")
}

// TestClusterDown kills every node of a Redis Cluster under a running
// backplane and restarts the Cluster, empty: calls work again, and the
// subscription made before the outage receives the messages of every
// shard again, each shard's channel living on its own master.
func TestClusterDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	c := redistest.StartCluster(t)
	b := newNode(t, c.URL)
	got := subscribe(t, b)
	// A message for each shard: the URI decides it.
	uris := make([]string, Shards)
	for n, left := 0, Shards; left > 0; n++ {
		uri := fmt.Sprintf("after the restart %d", n)
		ch := b.shardChannel(&backplane.Message{URI: uri})
		for i := range uris {
			if uris[i] == "" && ch == b.shardName(i) {
				uris[i] = uri
				left--
			}
		}
	}
	receive(t, b, got, "before the outage")

	c.Stop()
	if err := setUp(t, b); err == nil {
		t.Fatal("a call succeeded with every node of the Cluster down")
	}
	c.Restart(t)
	recovered(t, b)
	for _, uri := range uris {
		receive(t, b, got, uri)
	}
}

// subscribe subscribes b until the test ends, with a handler that
// passes the messages on to the channel returned.
func subscribe(t *testing.T, b *Backplane) <-chan *backplane.Message {
	t.Helper()
	got := make(chan *backplane.Message, 100)
	stop, err := b.Subscribe(func(m *backplane.Message) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return got
}

// recovered waits until b's calls work again after Redis restarted:
// go-redis stops dialing for a moment after repeated failures.
func recovered(t *testing.T, b *Backplane) {
	t.Helper()
	mcptest.WaitUntil(t, "the backplane works again after the restart", func() bool { return setUp(t, b) == nil })
}

// dialCounter counts a client's dials, each try of each dial.
type dialCounter struct{ n atomic.Int32 }

func (d *dialCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.n.Add(1)
		return next(ctx, network, addr)
	}
}

func (d *dialCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (d *dialCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// receive publishes until the subscription's handler gets a message:
// after a restart, go-redis subscribes again on its own, a moment later.
func receive(t *testing.T, b *Backplane, got <-chan *backplane.Message, when string) {
	t.Helper()
	deadline := mcptest.Context(t).Done()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := b.Publish(context.Background(), &backplane.Message{Kind: backplane.KindNotify, URI: when}); err != nil {
			t.Logf("publish %s: %v", when, err)
		}
		select {
		case m := <-got:
			if m.Kind == backplane.KindNotify && m.URI == when {
				return
			}
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the subscription got no message %s", when)
		}
	}
}

// TestUnresponsiveRedis checks that every call honors its context's
// deadline when Redis accepts connections but never answers. The client
// has no timeouts of its own, so a call that lost its context's deadline
// would wait until the test's.
func TestUnresponsiveRedis(t *testing.T) {
	t.Parallel()
	addr := blackHole(t)
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1,
		ReadTimeout: -1, WriteTimeout: -1})
	defer c.Close()
	b := NewFromClient(c)
	defer b.Close()
	for _, cl := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- cl.do(ctx, b) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s on an unresponsive Redis succeeded, want an error at the deadline", cl.name)
			}
		case <-mcptest.Context(t).Done():
			t.Errorf("%s on an unresponsive Redis outlived its context's deadline until the test's", cl.name)
		}
		cancel()
	}
}

// blackHole listens on a loopback port and accepts connections, reading
// and discarding what they send, until the test ends.
func blackHole(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			})
		}
	})
	return l.Addr().String()
}
