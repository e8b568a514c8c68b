package session

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
)

// Config configures the sessions of one node.
type Config struct {
	Backplane backplane.Backplane
	Local     bool          // the backplane lives in this process: no other node claims ids
	Streams   *stream.Node  // makes the sessions' streams and bounds backplane calls
	Timeout   time.Duration // idle time after which a session ends; 0: never
	Node      string        // this node's id, part of ids that must be unique across nodes
	Log       zerolog.Logger
	Publish   func(*backplane.Message) // sends to every node
	// MaxSubscriptions caps a session's resource subscriptions; 0: none.
	MaxSubscriptions int
	// Expired runs when the idle timer finds the shared record gone, with
	// why: EndTimeout for a session left idle, EndError for one in use
	// whose record was lost.
	Expired func(s *Session, why string)
	// Hold records a work entry of this node (package lease) until the
	// returned func runs, so that the request is ended if the node dies;
	// nil records nothing.
	Hold func(entry string) (release func())
}

// Table holds the sessions this node has live state for.
type Table struct {
	cfg     Config
	counter atomic.Uint64
	mu      sync.RWMutex
	m       map[string]*Session
	// One sweeper goroutine checks the idle sessions, rather than a timer
	// per session: a timer costs more than an eighth of an idle session.
	stop chan struct{} // while the sweeper runs: closed to stop it when the table empties
}

// NewTable returns an empty table configured by cfg.
func NewTable(cfg Config) *Table { return &Table{cfg: cfg, m: map[string]*Session{}} }

// uniqueID returns an id unique across the nodes of the deployment:
// prefix, this node's id, a dot and a counter. Any node tells from it
// which node made it (see source).
func (t *Table) uniqueID(prefix string) string {
	return prefix + t.cfg.Node + "." + strconv.FormatUint(t.counter.Add(1), 36)
}

// Create stores a new session's record in the backplane, to expire after
// the timeout without use, and holds the session here. release, if not
// nil, runs once when this node's side of the session ends (Stop), or
// before Create returns an error: it gives back what the session counted
// against its creator's limits.
func (t *Table) Create(rec *backplane.Session, release func()) (*Session, error) {
	ctx, cancel := t.cfg.Streams.Context()
	defer cancel()
	if err := t.cfg.Backplane.CreateSession(ctx, rec, t.cfg.Timeout); err != nil {
		if release != nil {
			release()
		}
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := t.newSession(rec)
	s.release = release
	s.extended.Store(time.Now().UnixNano()) // created with the timeout to live
	return t.hold(s), nil
}

// Discard deletes a session that was just created and that nobody saw,
// with no end to report: its creator was refused it.
func (t *Table) Discard(s *Session) error {
	s.Stop()
	ctx, cancel := t.cfg.Streams.Context()
	defer cancel()
	if _, err := t.cfg.Backplane.DeleteSession(ctx, s.id); err != nil {
		return fmt.Errorf("discard session %s: %w", s.id, err)
	}
	return nil
}

// Get returns the session id, or nil if this node holds no state for it.
func (t *Table) Get(id string) *Session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[id]
}

// Add builds this node's side of a session from its shared record, unless
// the node already holds the session, and returns the one held.
func (t *Table) Add(rec *backplane.Session) *Session { return t.hold(t.newSession(rec)) }

// hold adds s to the table unless a session of its id is held already,
// and returns the one held; s, not held, gives back what it counted.
func (t *Table) hold(s *Session) *Session {
	t.mu.Lock()
	old := t.m[s.id]
	if old == nil {
		t.m[s.id] = s
	}
	t.mu.Unlock()
	if old == nil {
		return s
	}
	if s.release != nil {
		s.release()
	}
	return old
}

func (t *Table) remove(id string) {
	t.mu.Lock()
	delete(t.m, id)
	if len(t.m) == 0 {
		t.m = map[string]*Session{} // maps keep their peak size; start small again
		if t.stop != nil {
			close(t.stop)
			t.stop = nil
		}
	}
	t.mu.Unlock()
}

// All returns the sessions held, in no order.
func (t *Table) All() []*Session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Collect(maps.Values(t.m))
}

// Len returns the number of sessions held.
func (t *Table) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}

// Attached returns how many of the sessions held have a client reading
// their GET stream here.
func (t *Table) Attached() int {
	n := 0
	for _, s := range t.All() {
		if s.GetStreamAttached() {
			n++
		}
	}
	return n
}

// WatchIdle has the session checked for idleness every half timeout
// (see checkIdle), from now on.
func (s *Session) WatchIdle() {
	t := s.t
	d := t.cfg.Timeout
	if d <= 0 || !s.due.CompareAndSwap(0, time.Now().Add(d/2).UnixNano()) {
		return
	}
	t.mu.Lock()
	if t.stop == nil && len(t.m) > 0 {
		t.stop = make(chan struct{})
		go t.sweep(t.stop)
	}
	t.mu.Unlock()
}

// sweep checks the sessions that are due, every quarter timeout, until
// the table empties.
func (t *Table) sweep(stop chan struct{}) {
	tick := time.NewTicker(t.cfg.Timeout / 4)
	defer tick.Stop()
	var due []*Session
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			due = t.due(now.UnixNano(), due[:0])
			for i, s := range due {
				if !s.checkIdle() {
					// The backplane is down: the rest wait for the next
					// round rather than each for its own time-out.
					for _, s := range due[i+1:] {
						s.due.Store(now.Add(t.cfg.Timeout / 2).UnixNano())
					}
					break
				}
			}
			clear(due) // hold no ended session until the next round
		}
	}
}

// due appends the sessions whose idle check is due at now.
func (t *Table) due(now int64, into []*Session) []*Session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, s := range t.m {
		if d := s.due.Load(); d != 0 && d <= now {
			into = append(into, s)
		}
	}
	return into
}

// checkIdle keeps a session in use alive, and otherwise lets this node
// forget it; if the shared record expired too, the session has ended. It
// reports false when the backplane could not be reached.
//
// It runs every half timeout and extends the shared record before it can
// expire under a session in use: for twice the timeout while work or a
// stream is live here (a late check cannot let it lapse), and to the
// timeout after the last use when the session was used since the record
// was last extended (a request ended). A session thus ends between one
// and one and a half timeouts after its last use (plus up to a quarter
// timeout, the sweep's period).
func (s *Session) checkIdle() bool {
	s.due.Store(0) // each outcome but the end sets the next check
	cfg := &s.t.cfg
	d := cfg.Timeout
	busy := s.busy.Load() > 0
	last := s.lastActive.Load()
	idle := time.Since(time.Unix(0, last))
	ctx, cancel := cfg.Streams.Context()
	defer cancel()
	if busy || idle < d {
		var err error
		switch {
		case busy:
			err = s.extend(ctx, 2*d, true)
		case last > s.extended.Load():
			err = s.extend(ctx, d-idle, false)
		}
		if errors.Is(err, backplane.ErrNotFound) {
			s.expired() // ended on another node, or the backplane lost it
			return true
		} else if err != nil {
			cfg.Log.Warn().Err(err).Str("session", s.id).Msg("mcp session: its shared record could not be extended; retrying")
			s.checkIn(d / 2)
			return false
		}
		s.checkIn(d / 2)
		return true
	}
	if _, err := cfg.Backplane.LoadSession(ctx, s.id); errors.Is(err, backplane.ErrNotFound) {
		s.expired()
		return true
	} else if err != nil {
		s.checkIn(d) // the backplane is down; look again later
		return false
	} else if s.extended.Load() >= last && idle < 2*d {
		s.checkIn(d / 2) // the record lives on this node's last extension
		return true
	}
	// Another node served it since: this node just lets go.
	s.letGo()
	return true
}

// expired ends a session whose shared record is gone.
func (s *Session) expired() {
	if s.t.cfg.Expired != nil {
		s.t.cfg.Expired(s, s.LostReason())
	} else {
		s.Stop()
	}
}

// LostReason says why a session whose shared record is gone ended:
// EndTimeout when it was idle for the timeout, so the record expired,
// EndError when it was in use, so the backplane lost it.
func (s *Session) LostReason() string {
	d := s.t.cfg.Timeout
	if s.busy.Load() == 0 && d > 0 && time.Since(time.Unix(0, s.lastActive.Load())) >= d {
		return EndTimeout
	}
	return EndError
}

// checkIn has the sweep check the session again after d.
func (s *Session) checkIn(d time.Duration) { s.due.Store(time.Now().Add(d).UnixNano()) }
