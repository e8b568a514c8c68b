package redisbp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// BreakerWindow is how long, after a call found Redis unreachable, the
// calls on stream events (Append, Events, DropStream) and Publish fail at
// once with ErrUnavailable, instead of each waiting out go-redis's dials
// and retries (about 1.5 s a call on a Cluster) for the same answer. In
// the background the backplane pings Redis every probeEvery and lets
// calls through again as soon as it answers; if the pings cannot tell,
// one call per window goes to Redis to find out. On a Cluster each master
// has its own breaker, so one master down does not fail the sessions of
// the others.
const BreakerWindow = time.Second

// probeEvery is how often an open breaker pings Redis.
const probeEvery = 100 * time.Millisecond

// ErrUnavailable is the error of a call that failed fast because a call
// shortly before found Redis unreachable (see BreakerWindow).
var ErrUnavailable = errors.New("redisbp: Redis is unreachable")

// breaker fails calls to one Redis (one master of a Cluster) fast while
// it is known to be down.
type breaker struct {
	until atomic.Int64 // unix ns until which calls fail fast; 0: closed

	mu      sync.Mutex
	cause   error     // the failure that opened it
	since   time.Time // when it opened
	probing bool
}

// check returns nil if a call may go to Redis, or the error to fail it
// with. Once the window has passed with no answer from the probe, one
// call goes through to find out, and the others keep failing fast.
func (br *breaker) check() error {
	until := br.until.Load()
	if until == 0 {
		return nil
	}
	if now := time.Now().UnixNano(); now >= until && br.until.CompareAndSwap(until, now+int64(BreakerWindow)) {
		return nil
	}
	br.mu.Lock()
	cause, since := br.cause, br.since
	br.mu.Unlock()
	if cause == nil { // closed meanwhile
		return nil
	}
	return fmt.Errorf("%w (since %v ago: %v)", ErrUnavailable, time.Since(since).Round(time.Millisecond), cause)
}

// close lets calls through again.
func (br *breaker) close() {
	if br.until.Load() == 0 {
		return
	}
	br.mu.Lock()
	br.until.Store(0)
	br.cause = nil
	br.mu.Unlock()
}

// outage reports whether err, the error of a call made with ctx, says
// that Redis is unreachable: neither an answer of Redis (an error reply,
// or nil) nor the end of the caller's context.
func outage(ctx context.Context, err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return false
	}
	// A pool that has no connection free is busy, not down.
	var reply redis.Error
	return !errors.As(err, &reply) && !errors.Is(err, redis.ErrPoolTimeout)
}

// guarded is the breaker of the Redis that holds key, with its client.
type guarded struct {
	br   *breaker
	node interface {
		Ping(context.Context) *redis.StatusCmd
	}
}

// guard returns the breaker of the Redis that holds key (on one Redis,
// its only one), or a zero guarded if a Cluster does not know the master
// of key yet.
func (b *Backplane) guard(ctx context.Context, key string) guarded {
	cc, ok := b.client.(*redis.ClusterClient)
	if !ok {
		return guarded{br: &b.breaker, node: b.client}
	}
	node, err := cc.MasterForKey(ctx, key)
	if err != nil {
		return guarded{}
	}
	addr := node.Options().Addr
	br, ok := b.breakers.Load(addr)
	if !ok {
		br, _ = b.breakers.LoadOrStore(addr, &breaker{})
	}
	return guarded{br: br.(*breaker), node: node}
}

// check is breaker.check, for a guarded that may have none.
func (g guarded) check() error {
	if g.br == nil {
		return nil
	}
	return g.br.check()
}

// done records the outcome of a call made with ctx that g let through:
// Redis unreachable opens the breaker, anything else closes it.
func (b *Backplane) done(ctx context.Context, g guarded, err error) {
	if g.br == nil {
		return
	}
	if !outage(ctx, err) {
		g.br.close()
		return
	}
	br := g.br
	br.mu.Lock()
	if br.cause == nil {
		br.since = time.Now()
	}
	br.cause = err
	br.until.Store(time.Now().Add(BreakerWindow).UnixNano())
	start := !br.probing
	br.probing = true
	br.mu.Unlock()
	if start && !b.goBackground(func() { b.probe(g) }) {
		br.mu.Lock()
		br.probing = false
		br.mu.Unlock()
	}
}

// probe pings the Redis of g while its breaker is open, and closes it
// as soon as Redis answers. It ends under the breaker's lock when the
// breaker is closed, so that a failure after that starts another.
func (b *Backplane) probe(g guarded) {
	br := g.br
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-b.quit:
			err = errClosed
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
			err = g.node.Ping(ctx).Err()
			cancel()
		}
		if err != nil && !errors.Is(err, errClosed) {
			// On a Cluster, a replica may have taken the slots over:
			// the calls find it once the client reloads its map.
			b.failed(err)
		}
		br.mu.Lock()
		if err == nil {
			br.until.Store(0)
			br.cause = nil
		}
		// A Cluster node that left (ErrClosed) has given its slots to
		// another master, whose breaker is another.
		if br.until.Load() == 0 || errors.Is(err, errClosed) || errors.Is(err, redis.ErrClosed) {
			br.probing = false
			br.mu.Unlock()
			return
		}
		br.mu.Unlock()
	}
}

// goBackground runs f in a goroutine that Close waits for, unless the
// backplane is closed; it reports whether it did.
func (b *Backplane) goBackground(f func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.background.Go(f)
	return true
}
