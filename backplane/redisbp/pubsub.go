package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Publish implements backplane.Backplane: m goes, as JSON, to the
// channel every node's Subscribe listens on.
func (b *Backplane) Publish(ctx context.Context, m *backplane.Message) error {
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("redisbp: publish: %w", err)
	}
	if err := b.client.Publish(ctx, b.channel, js).Err(); err != nil {
		return fmt.Errorf("redisbp: publish to %q: %w", b.channel, err)
	}
	return nil
}

// Subscribe implements backplane.Backplane. It returns once Redis has
// confirmed the subscription, so a message published after it returns
// reaches handle. handle is called from one goroutine, in order of
// publication; when it falls 100 messages behind, go-redis waits up to a
// minute for it and then drops messages. After a connection failure
// go-redis reconnects and subscribes again on its own; messages published
// in between are lost. stop must not be called from handle: it waits for
// handle to return.
func (b *Backplane) Subscribe(handle func(*backplane.Message)) (stop func(), err error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
	defer cancel()
	ps := b.client.Subscribe(ctx, b.channel)
	// The first reply is the confirmation, or the error of SUBSCRIBE.
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("redisbp: subscribe to %q: %w", b.channel, err)
	}
	s := &subscription{ps: ps, done: make(chan struct{})}
	b.mu.Lock()
	if b.closed { // Close ran while Redis confirmed
		b.mu.Unlock()
		_ = ps.Close()
		return nil, errClosed
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.run(ps.Channel(), handle)
	return func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.stop()
	}, nil
}

// subscription is one Subscribe: a go-redis PubSub and the goroutine
// that decodes its messages and hands them to the handler.
type subscription struct {
	ps       *redis.PubSub
	stopping atomic.Bool
	done     chan struct{} // closed when run returns
	once     sync.Once
}

func (s *subscription) run(ch <-chan *redis.Message, handle func(*backplane.Message)) {
	defer close(s.done)
	for rm := range ch {
		if s.stopping.Load() {
			// Keep draining until go-redis closes ch, so that its
			// goroutine is not left blocked on a send.
			continue
		}
		var m backplane.Message
		if err := json.Unmarshal([]byte(rm.Payload), &m); err != nil {
			// Not from a Specter node, and there is nobody to tell.
			continue
		}
		handle(&m)
	}
}

// stop closes the PubSub, which makes go-redis close ch, and waits for
// run to return, so handle is not called after stop. Later and
// concurrent calls wait for the first.
func (s *subscription) stop() {
	s.once.Do(func() {
		s.stopping.Store(true)
		_ = s.ps.Close()
		<-s.done
	})
}
