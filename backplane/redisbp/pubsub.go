package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// subscribeTimeout bounds how long Subscribe, which takes no context,
// waits for Redis to confirm the subscription.
const subscribeTimeout = 5 * time.Second

var errClosed = errors.New("redisbp: backplane closed")

// Shards is how many sharded Pub/Sub channels carry the messages between
// nodes on a Redis Cluster.
//
// On a Cluster a classic PUBLISH goes to any node, which forwards it to
// every other over the Cluster bus, so two messages a node publishes one
// after the other may reach a subscriber in the other order. Sharded
// Pub/Sub (SPUBLISH, SSUBSCRIBE) keeps a channel on the master of its
// slot, which delivers its messages in the order published: the messages
// of one session (or, without one, of one resource URI or task) always
// take the same one of Shards channels, "<channel>:{<n>}", and every node
// subscribes to all of them, so they arrive in order, and the masters
// share the traffic.
const Shards = 8

// shardChannel returns the sharded channel of m.
func (b *Backplane) shardChannel(m *backplane.Message) string {
	key := m.Session
	if key == "" {
		key = m.URI
	}
	if key == "" {
		key = m.Stream
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return b.shardName(int(h.Sum32() % Shards))
}

func (b *Backplane) shardName(i int) string { return b.channel + ":{" + strconv.Itoa(i) + "}" }

// Publish implements backplane.Backplane: m goes, as JSON, to the
// channel every node's Subscribe listens on (on a Cluster, the sharded
// channel of its session). While Redis is unreachable it fails fast (see
// BreakerWindow). A message it could not publish is not retried, but it
// is not lost in silence either: once Redis takes messages again, every
// node's subscription gets a backplane.KindGap message, so that the
// listeners who may have missed it are told.
func (b *Backplane) Publish(ctx context.Context, m *backplane.Message) error {
	if err := b.publish(ctx, m); err != nil {
		b.gap.pending(b)
		return err
	}
	return nil
}

func (b *Backplane) publish(ctx context.Context, m *backplane.Message) error {
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("redisbp: publish: %w", err)
	}
	ch := b.channel
	cc, cluster := b.client.(*redis.ClusterClient)
	if cluster {
		ch = b.shardChannel(m)
	}
	g := b.guard(ctx, ch)
	if err := g.check(); err != nil {
		return fmt.Errorf("redisbp: publish to %q: %w", ch, err)
	}
	if cluster {
		err = cc.SPublish(ctx, ch, js).Err()
	} else {
		err = b.client.Publish(ctx, ch, js).Err()
	}
	b.done(ctx, g, err)
	if err != nil {
		return fmt.Errorf("redisbp: publish to %q: %w", ch, err)
	}
	return nil
}

// gapNotice publishes a backplane.KindGap message after a publish failed,
// as soon as Redis takes it: one for any number of failures before.
type gapNotice struct {
	mu      sync.Mutex
	waiting bool // a failure is not yet told
	running bool // send runs
}

// pending notes that a publish failed, and starts send unless it runs.
func (n *gapNotice) pending(b *Backplane) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.waiting = true
	if !n.running {
		n.running = b.goBackground(func() { n.send(b) })
	}
}

// send tries every probeEvery to publish the gap message until one
// publish made after the last failure went through.
func (n *gapNotice) send(b *Backplane) {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.quit:
			return
		case <-tick.C:
		}
		n.mu.Lock()
		if !n.waiting {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.waiting = false
		n.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
		err := b.publish(ctx, &backplane.Message{Kind: backplane.KindGap})
		cancel()
		if err != nil {
			n.mu.Lock()
			n.waiting = true
			n.mu.Unlock()
		}
	}
}

// Subscribe implements backplane.Backplane. It returns once Redis has
// confirmed the subscription, so a message published after it returns
// reaches handle. handle is called from one goroutine, in order of
// publication (on a Cluster, of the messages of one shard: those of one
// session, resource or task); when it falls 100 messages behind, go-redis waits up to a
// minute for it and then drops messages. After a connection failure
// go-redis reconnects and subscribes again on its own; messages published
// in between are lost, so handle then gets a backplane.KindGap message,
// in order with the others. stop must not be called from handle: it
// waits for handle to return.
func (b *Backplane) Subscribe(handle func(*backplane.Message)) (stop func(), err error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
	defer cancel()
	s := &subscription{done: make(chan struct{})}
	if cc, ok := b.client.(*redis.ClusterClient); ok {
		for i := range Shards {
			// One PubSub per shard: each lives on the master of its slot.
			s.ps = append(s.ps, cc.SSubscribe(ctx, b.shardName(i)))
		}
	} else {
		s.ps = []*redis.PubSub{b.client.Subscribe(ctx, b.channel)}
	}
	for _, ps := range s.ps {
		// The first reply is the confirmation, or the error of SUBSCRIBE.
		if _, err := ps.Receive(ctx); err != nil {
			s.closeAll()
			return nil, fmt.Errorf("redisbp: subscribe to %q: %w", b.channel, err)
		}
	}
	b.mu.Lock()
	if b.closed { // Close ran while Redis confirmed
		b.mu.Unlock()
		s.closeAll()
		return nil, errClosed
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.run(s.merge(), handle)
	return func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.stop()
	}, nil
}

// subscription is one Subscribe: go-redis PubSubs (one, or one per
// shard on a Cluster) and the goroutine that decodes their messages and
// hands them to the handler.
type subscription struct {
	ps       []*redis.PubSub
	stopping atomic.Bool
	done     chan struct{} // closed when run returns
	once     sync.Once
}

func (s *subscription) run(ch <-chan any, handle func(*backplane.Message)) {
	defer close(s.done)
	for rm := range ch {
		if s.stopping.Load() {
			// Keep draining until go-redis closes ch, so that its
			// goroutine is not left blocked on a send.
			continue
		}
		var m backplane.Message
		switch rm := rm.(type) {
		case *redis.Subscription:
			// Subscribe read the first confirmation: this one is
			// go-redis subscribing again after the connection broke.
			if rm.Kind != "subscribe" && rm.Kind != "ssubscribe" {
				continue
			}
			m.Kind = backplane.KindGap
		case *redis.Message:
			if err := json.Unmarshal([]byte(rm.Payload), &m); err != nil {
				// Not from a Specter node, and there is nobody to tell.
				continue
			}
		default:
			continue
		}
		handle(&m)
	}
}

// merge returns the messages and subscription confirmations of every
// PubSub on one channel, each PubSub's in order, closed once go-redis
// closed all of theirs.
func (s *subscription) merge() <-chan any {
	if len(s.ps) == 1 {
		return s.ps[0].ChannelWithSubscriptions()
	}
	out := make(chan any, 100)
	var wg sync.WaitGroup
	for _, ps := range s.ps {
		wg.Go(func() {
			for rm := range ps.ChannelWithSubscriptions() {
				out <- rm // run drains out until it is closed
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

func (s *subscription) closeAll() {
	for _, ps := range s.ps {
		_ = ps.Close()
	}
}

// stop closes the PubSubs, which makes go-redis close their channels,
// and waits for run to return, so handle is not called after stop. Later
// and concurrent calls wait for the first.
func (s *subscription) stop() {
	s.once.Do(func() {
		s.stopping.Store(true)
		s.closeAll()
		<-s.done
	})
}
