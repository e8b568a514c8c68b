package stream

import (
	"sync"
	"sync/atomic"
	"time"
)

// keepAliveTimer is a stream's keep-alive timer. Most POST answers come
// before the first tick, so the timers are recycled: a timer stopped
// before it fired goes back to a pool with its func, and the next stream
// takes both, instead of allocating a timer and a closure per request.
type keepAliveTimer struct {
	t *time.Timer
	s atomic.Pointer[Stream] // the stream it ticks for
}

var keepAliveTimers sync.Pool

// armKeepAlive returns a timer that runs s.keepAlive after d.
func armKeepAlive(s *Stream, d time.Duration) *keepAliveTimer {
	k, _ := keepAliveTimers.Get().(*keepAliveTimer)
	if k == nil {
		k = &keepAliveTimer{}
		k.s.Store(s)
		k.t = time.AfterFunc(d, k.fire)
		return k
	}
	k.s.Store(s)
	k.t.Reset(d)
	return k
}

func (k *keepAliveTimer) fire() {
	if s := k.s.Load(); s != nil {
		s.keepAlive()
	}
}

// stopKeepAlive stops the stream's keep-alive. A timer stopped before it
// fired is recycled: its func will not run for this stream. One that
// fired, or is firing, is left to the collector. Called with s.mu held.
func (s *Stream) stopKeepAlive() {
	k := s.timer
	if k == nil {
		return
	}
	s.timer = nil
	if k.t.Stop() {
		k.s.Store(nil)
		keepAliveTimers.Put(k)
	}
}
