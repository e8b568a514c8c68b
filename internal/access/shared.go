package access

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
)

// Shared counts what callers hold on every node sharing a backplane
// (backplane.Quotas), where Quota counts on one node. What a node holds
// open (a stream) counts for HeldTTL, which the node renews every third
// of it while it holds it: what a node that died held stops counting
// within HeldTTL. Its methods are safe for concurrent use.
type Shared struct {
	q    backplane.Quotas
	node string
	ttl  time.Duration
	ctx  func() (context.Context, context.CancelFunc)
	log  zerolog.Logger
	n    atomic.Uint64 // names this node's entries

	mu   sync.Mutex
	held map[string]map[string]struct{} // quota key → the entries this node renews
	stop chan struct{}                  // while the renewer runs: closed to stop it when nothing is held
}

// HeldTTL is how long a held entry counts without its node's renewal.
const HeldTTL = 30 * time.Second

// SharedConfig configures NewShared.
type SharedConfig struct {
	Quotas  backplane.Quotas
	Node    string        // this node's id, unique in the deployment
	TTL     time.Duration // of held entries; 0: HeldTTL
	Context func() (context.Context, context.CancelFunc)
	Log     zerolog.Logger
}

// NewShared returns the counter of cfg.
func NewShared(cfg SharedConfig) *Shared {
	if cfg.TTL <= 0 {
		cfg.TTL = HeldTTL
	}
	return &Shared{q: cfg.Quotas, node: cfg.Node, ttl: cfg.TTL, ctx: cfg.Context, log: cfg.Log, held: map[string]map[string]struct{}{}}
}

// quotaKey names kind's quota of caller.
func quotaKey(kind, caller string) string { return kind + " " + caller }

// Hold counts one more kind (streams, listeners) for caller while it is
// held, if caller holds fewer than limit on all nodes. On success it
// returns the function that lets it go; calling it more than once lets
// go only once. An error means the backplane could not say.
func (s *Shared) Hold(kind, caller string, limit int) (release func(), ok bool, err error) {
	key, entry := quotaKey(kind, caller), s.node+"."+strconv.FormatUint(s.n.Add(1), 36)
	ctx, cancel := s.ctx()
	ok, err = s.q.Hold(ctx, key, entry, s.ttl, limit)
	cancel()
	if !ok || err != nil {
		return nil, false, err
	}
	s.renew(key, entry)
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			s.forget(key, entry)
			s.unhold(key, entry)
		}
	}, true, nil
}

// HoldFor counts entry (a task) of kind for caller for ttl, if caller
// holds fewer than limit on all nodes. release lets it go early.
func (s *Shared) HoldFor(kind, caller, entry string, ttl time.Duration, limit int) (release func(), ok bool, err error) {
	key := quotaKey(kind, caller)
	ctx, cancel := s.ctx()
	ok, err = s.q.Hold(ctx, key, entry, ttl, limit)
	cancel()
	if !ok || err != nil {
		return nil, false, err
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			s.unhold(key, entry)
		}
	}, true, nil
}

// HoldSession counts session id, just created, for caller while the
// session exists, if fewer than limit of caller's sessions exist on all
// nodes.
func (s *Shared) HoldSession(caller, id string, limit int) (bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.q.HoldSession(ctx, quotaKey("sessions", caller), id, limit)
}

func (s *Shared) unhold(key, entry string) {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.q.Unhold(ctx, key, entry); err != nil {
		s.log.Warn().Err(err).Str("quota", key).Msg("specter: letting a quota's entry go failed; it counts until it runs out")
	}
}

// renew has entry of key renewed until it is forgotten.
func (s *Shared) renew(key, entry string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	es := s.held[key]
	if es == nil {
		es = map[string]struct{}{}
		s.held[key] = es
	}
	es[entry] = struct{}{}
	if s.stop == nil {
		s.stop = make(chan struct{})
		go s.renewer(s.stop)
	}
}

func (s *Shared) forget(key, entry string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	es := s.held[key]
	delete(es, entry)
	if len(es) > 0 {
		return
	}
	delete(s.held, key)
	if len(s.held) == 0 {
		s.held = map[string]map[string]struct{}{} // maps keep their peak size; start small again
		if s.stop != nil {
			close(s.stop)
			s.stop = nil
		}
	}
}

// renewer renews every entry held, every third of the ttl, until stop.
func (s *Shared) renewer(stop chan struct{}) {
	tick := time.NewTicker(s.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			var failed int
			var last error
			for key, entries := range s.snapshot() {
				ctx, cancel := s.ctx()
				if err := s.q.Renew(ctx, key, entries, s.ttl); err != nil {
					failed, last = failed+1, err
				}
				cancel()
			}
			if failed > 0 {
				// One line a round, however many callers: an outage
				// fails them all.
				s.log.Warn().Err(last).Int("quotas", failed).Msg("specter: renewing the entries of shared quotas failed; retrying")
			}
		}
	}
}

// snapshot returns the entries held, by key.
func (s *Shared) snapshot() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]string, len(s.held))
	for key, es := range s.held {
		list := make([]string, 0, len(es))
		for e := range es {
			list = append(list, e)
		}
		out[key] = list
	}
	return out
}
