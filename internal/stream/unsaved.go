package stream

import (
	"time"

	"github.com/specter-mcp/specter/backplane"
)

// unsaved holds, in order, the events of a stream that the backplane did
// not take (it was down), so that they are stored once it answers again:
// a client that resumes the stream on another node gets them late rather
// than never. They are bounded like the buffer itself; the oldest go
// first, and a node that replays the stream tells its client of the gap
// their sequence numbers leave.
type unsaved struct {
	events []backplane.Event
	bytes  int
	since  time.Time // when the first of them failed
	timer  bool      // a retry is scheduled
}

// Retrying unsaved events: how often, and for how long before they are
// given up (and logged as lost). A backplane that is down fails fast (see
// redisbp's breaker), so a retry costs little.
const (
	unsavedRetry = 200 * time.Millisecond
	unsavedFor   = 5 * time.Minute
)

// keep adds e after the events that wait, dropping the oldest beyond
// limit bytes (0: no limit) but never e itself.
func (u *unsaved) keep(e backplane.Event, limit int) {
	u.events = append(u.events, e)
	u.bytes += len(e.Data)
	for limit > 0 && u.bytes > limit && len(u.events) > 1 {
		u.bytes -= len(u.events[0].Data)
		u.events[0] = backplane.Event{}
		u.events = u.events[1:]
	}
}

// saveUnsaved stores the events that wait, in order, until one fails;
// then it tries again later. Called with s.mu held.
func (s *Stream) saveUnsaved() {
	u := s.unsaved
	for len(u.events) > 0 {
		if err := s.store(u.events[0]); err != nil {
			s.retryUnsaved()
			return
		}
		u.bytes -= len(u.events[0].Data)
		u.events[0] = backplane.Event{}
		u.events = u.events[1:]
	}
	s.unsaved = nil
}

// retryUnsaved schedules the next try to store the events that wait,
// unless one is scheduled, the stream was stopped with its session or
// node, or they waited unsavedFor already. Called with s.mu held.
func (s *Stream) retryUnsaved() {
	u := s.unsaved
	switch {
	case u.timer:
		return
	case s.stopped:
		s.unsaved = nil
		return
	case time.Since(u.since) > unsavedFor:
		s.n.cfg.Log.Error().Str("session", s.opts.Session).Str("stream", s.opts.ID).Int("events", len(u.events)).
			Msg("mcp stream buffer: the backplane did not answer for 5 minutes; messages a resuming client will be told are lost")
		s.unsaved = nil
		return
	}
	u.timer = true
	time.AfterFunc(unsavedRetry, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		u.timer = false
		if s.unsaved == u {
			s.saveUnsaved()
		}
	})
}
