// Package lease keeps a node's lease on a shared backplane, with the work
// it runs, and takes over the work of nodes whose lease lapsed.
//
// A node renews its lease every TTL/3 and, a moment after its work
// changes (settle), records what it runs; a node that dies stops renewing, and
// once its lease lapses the first node to look claims it and hands its
// work to Down, which ends it (an error for its requests, failed tasks).
package lease

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
)

// Defaults of Config.
const (
	// TTL is how long a lease lasts without renewal: a dead node's work is
	// taken over within about TTL plus one renewal interval.
	TTL = 3 * time.Second
	// Hold is how long a node that took over another's work has to end
	// it before a third node may claim it again.
	Hold = 30 * time.Second
	// settle is the least time between two records of changed work, so
	// that a busy node writes tens of times a second, not once per
	// request. Work that starts and whose node dies within it is not
	// recorded: a request's stream is then ended by the node that a
	// client resumes it on, once the lease is gone (stream.Node.Tail).
	settle = 20 * time.Millisecond
	// renewals is how many renewals in a row a lease makes in a TTL.
	renewals = 3
)

// Config configures a Keeper.
type Config struct {
	Leases backplane.Leases
	Node   string        // this node's id, unique in the deployment
	TTL    time.Duration // 0: TTL
	// Down ends the work of a node whose lease lapsed: it runs on the one
	// node that claimed it, and reports whether all of it ended (else the
	// claim lapses and it is tried again).
	Down    func(ctx context.Context, node string, work []string) bool
	Log     zerolog.Logger
	Timeout time.Duration // bound of one backplane call
}

// Keeper holds a node's lease. Its methods are safe for concurrent use.
type Keeper struct {
	cfg   Config
	dirty chan struct{}
	stop  chan struct{}
	done  chan struct{}

	healthy int // renewals in a row that the backplane took (run's goroutine only)

	mu      sync.Mutex
	work    map[string]int      // entry → holds
	written map[string]struct{} // the work as last written
}

// New returns a Keeper of cfg.Node's lease; Start starts it.
func New(cfg Config) *Keeper {
	if cfg.TTL <= 0 {
		cfg.TTL = TTL
	}
	return &Keeper{cfg: cfg, dirty: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), work: map[string]int{}, written: map[string]struct{}{}}
}

// Start renews the lease until Stop, and takes over lapsed ones.
func (k *Keeper) Start() {
	k.renew() // the lease exists before any work is recorded
	go k.run()
}

// Hold records entry as work of this node until release.
func (k *Keeper) Hold(entry string) (release func()) {
	k.mu.Lock()
	k.work[entry]++
	k.mu.Unlock()
	k.mark()
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			if k.work[entry]--; k.work[entry] <= 0 {
				delete(k.work, entry)
			}
			k.mu.Unlock()
			k.mark()
		})
	}
}

func (k *Keeper) mark() {
	select {
	case k.dirty <- struct{}{}:
	default:
	}
}

// Stop stops renewing and, the node's work being over, gives its lease
// back so that nobody takes it over.
func (k *Keeper) Stop() {
	select {
	case <-k.stop:
		return
	default:
	}
	close(k.stop)
	<-k.done
	ctx, cancel := k.context()
	defer cancel()
	if err := k.cfg.Leases.Done(ctx, k.cfg.Node); err != nil {
		k.cfg.Log.Warn().Err(err).Msg("specter: giving the node's lease back failed; another node will take it over")
	}
}

func (k *Keeper) context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), max(k.cfg.Timeout, time.Second))
}

func (k *Keeper) run() {
	defer close(k.done)
	tick := time.NewTicker(k.cfg.TTL / renewals)
	defer tick.Stop()
	// A change of the work is recorded settle after it, if the work then
	// differs from what was recorded: a request that begins and ends
	// within settle costs no write.
	var settled <-chan time.Time
	for {
		select {
		case <-k.stop:
			return
		case <-tick.C:
			k.renew()
			k.takeOver()
		case <-k.dirty:
			if settled == nil {
				settled = time.After(settle)
			}
		case <-settled:
			settled = nil
			k.record()
		}
	}
}

// record renews the lease if the work changed since it was last written.
func (k *Keeper) record() {
	k.mu.Lock()
	same := maps.EqualFunc(k.work, k.written, func(int, struct{}) bool { return true })
	k.mu.Unlock()
	if !same {
		k.renew()
	}
}

// renew writes the lease with the work as it is now.
func (k *Keeper) renew() {
	k.mu.Lock()
	work := make([]string, 0, len(k.work))
	clear(k.written)
	for e := range k.work {
		work = append(work, e)
		k.written[e] = struct{}{}
	}
	k.mu.Unlock()
	ctx, cancel := k.context()
	defer cancel()
	if err := k.cfg.Leases.Heartbeat(ctx, k.cfg.Node, k.cfg.TTL, work); err != nil {
		k.cfg.Log.Warn().Err(err).Msg("specter: the node's lease was not renewed")
		k.healthy = 0
		k.mu.Lock()
		clear(k.written) // written again at the next change
		k.mu.Unlock()
		return
	}
	k.healthy++
}

// takeOver ends the work of every node whose lease lapsed that this node
// can claim.
func (k *Keeper) takeOver() {
	if k.healthy < renewals {
		// After an outage of the backplane every node's lease lapsed:
		// this one waits until the others had a whole TTL to renew
		// theirs, so that it takes over only nodes that are gone.
		return
	}
	for {
		ctx, cancel := k.context()
		node, work, err := k.cfg.Leases.TakeOver(ctx, Hold)
		cancel()
		if err != nil {
			k.cfg.Log.Warn().Err(err).Msg("specter: looking for nodes whose lease lapsed failed")
			return
		}
		if node == "" {
			return
		}
		if node == k.cfg.Node {
			// This node's own lease lapsed while it could not renew it
			// (the backplane was out of reach): its work still runs.
			k.renew()
			continue
		}
		k.cfg.Log.Warn().Str("node", node).Int("work", len(work)).Msg("specter: a node's lease lapsed: ending its work")
		ctx, cancel = context.WithTimeout(context.Background(), Hold)
		ok := k.cfg.Down(ctx, node, work)
		if ok {
			ok = k.cfg.Leases.Done(ctx, node) == nil
		}
		cancel()
		if !ok {
			return // the claim lapses; this or another node tries again
		}
	}
}
