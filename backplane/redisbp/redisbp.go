// Package redisbp implements backplane.Backplane on Redis, so that many
// nodes of one Specter deployment share sessions, event buffers, claims
// and messages.
//
// All keys of a session carry the session id as a hash tag, so a Redis
// Cluster keeps them on one slot, and a session has a fixed set of keys
// whatever its streams, so that the Lua scripts that change them
// together name every key they touch in KEYS and stay atomic, also while
// the slot migrates. The layout, for the default prefix "specter":
//
//	specter:{<sid>}:session   hash: id, version, principal, client,
//	                          capabilities, logLevel, subscriptions,
//	                          topics, created, and "data:<key>" per data key
//	specter:{<sid>}:requests  hash: the request ids claimed in the session
//	specter:{<sid>}:events    sorted set: every stream's buffered events,
//	                          "<stream>\x00<n>\x00<event JSON>", in the
//	                          order appended
//	specter:{<sid>}:meta      hash: per stream, "z:<stream>" (bytes of
//	                          event data held), "n:" (events appended), "l:"
//	                          (Seq last dropped), "m:" (highest Seq
//	                          appended), "u:" (a Seq came lower than m)
//	specter:claim:<key>       string: a claim, with its TTL
//
// Stream keys expire with their session. Messages travel on one Pub/Sub
// channel, "specter:bus" by default; on a Cluster, on Shards sharded
// channels "specter:bus:{<n>}", a session's always on the same one, so
// that they keep their order. Pub/Sub delivers at most once:
// messages published while a node is disconnected from Redis do not reach
// it, and a publish may fail. Events are in the buffers and wake-ups are
// only hints; for the rest, a subscription that came back, and a node
// whose publish failed once Redis takes messages again, hand every node
// a backplane.KindGap message, on which the router tells its listening
// clients to read again what they follow.
//
// While Redis is unreachable, the calls on stream events and Publish fail
// fast (see BreakerWindow).
//
// Keys stay apart as long as the prefix holds no '{' or '}' (a tag there
// would put every session on one slot) and session ids and stream names
// hold no '}' (an id could then spell another session's keys); Specter
// generates ids and names of its own alphabet, and its router should turn
// away a client's session id outside it before asking the backplane.
package redisbp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// Settings of the client New creates, unless the URL sets them
// (dial_timeout, read_timeout, write_timeout, max_retries). They make a
// node whose Redis is down or unreachable fail calls quickly instead of
// holding requests: a refused connection fails a call in milliseconds, an
// unresponsive Redis in (MaxRetries+1) × ReadTimeout, or at the deadline
// of the call's context if that comes first. The one retry covers a
// connection that broke since its last use, as after a Redis restart.
const (
	DialTimeout  = 2 * time.Second
	ReadTimeout  = 2 * time.Second
	WriteTimeout = 2 * time.Second
	MaxRetries   = 1
)

// ClusterMaxRetries is MaxRetries for a Cluster client: a Cluster answers
// TRYAGAIN to a script while its session's slot migrates and its keys
// are split between two nodes, and MOVED or a refused connection while a
// replica takes over a master, each for a moment the retries (with
// go-redis's backoff, 8 to 512 ms) wait out, within the call's deadline.
const ClusterMaxRetries = 6

// Backplane is a backplane.Backplane on Redis. It is safe for concurrent
// use.
type Backplane struct {
	client     redis.UniversalClient
	ownClient  bool // New created client, so Close closes it
	prefix     string
	channel    string
	batch      batch          // Admit's and ClaimRequests's calls, pipelined under load
	reloaded   atomic.Int64   // unix ns of the last reload of a Cluster's slots
	background sync.WaitGroup // reloads, probes and gap notices under way, which Close waits for
	quit       chan struct{}  // closed by Close
	breaker    breaker        // of the one Redis (see BreakerWindow)
	breakers   sync.Map       // on a Cluster: master address → *breaker
	gap        gapNotice

	mu     sync.Mutex
	subs   map[*subscription]struct{}
	closed bool
}

var _ backplane.Backplane = (*Backplane)(nil)

// Option configures a Backplane.
type Option func(*options)

type options struct {
	prefix  string
	channel string
}

// Prefix sets the prefix of every key the backplane uses (default
// "specter"), so that several deployments can share one Redis.
func Prefix(p string) Option { return func(o *options) { o.prefix = p } }

// Channel sets the Pub/Sub channel of messages between nodes (default
// "<prefix>:bus").
func Channel(c string) Option { return func(o *options) { o.channel = c } }

// New returns a backplane on the Redis that url names, in one of three
// forms:
//
//   - one Redis: redis://[user:password@]host:port/db (see redis.ParseURL
//     for the query parameters);
//   - a Redis Cluster: redis://[user:password@]host:port?addr=host2:port2&addr=host3:port3,
//     any of its nodes, at least one addr parameter (for a single seed,
//     repeat it: ?addr=host:port); see redis.ParseClusterURL. Its
//     client retries ClusterMaxRetries times;
//   - a Redis managed by Sentinel: redis://[user:password@]sentinel:26379?master_name=mymaster&addr=sentinel2:26379,
//     the Sentinels' addresses (user and password are the Sentinels'; the
//     Redis's are the username and password parameters), with the name
//     of the master they watch; see redis.ParseFailoverURL.
//
// It checks the connection with a PING bounded by ctx. The client it
// creates uses DialTimeout, ReadTimeout, WriteTimeout and MaxRetries
// unless the URL sets them, and honors the deadlines of the contexts
// passed to the Backplane's methods. Close closes it.
func New(ctx context.Context, url string, opts ...Option) (*Backplane, error) {
	c, addr, err := newClient(url)
	if err != nil {
		return nil, err
	}
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redisbp: connect to %s: %w", addr, err)
	}
	b := NewFromClient(c, opts...)
	b.ownClient = true
	return b, nil
}

// clientSettings are the settings New gives every kind of client.
type clientSettings struct {
	dial, read, write             *time.Duration
	retries, dialerRetries, proto *int
	contextTimeout                *bool
}

// apply sets what the URL left unset, and what New always wants.
func (s clientSettings) apply() {
	if *s.dial == 0 {
		*s.dial = DialTimeout
	}
	if *s.read == 0 {
		*s.read = ReadTimeout
	}
	if *s.write == 0 {
		*s.write = WriteTimeout
	}
	if *s.retries == 0 {
		*s.retries = MaxRetries
	}
	// Each try dials once: go-redis's default, 5 dials with 100ms pauses,
	// would hold every try for nearly half a second while Redis is down.
	*s.dialerRetries = 1
	*s.contextTimeout = true
	if *s.proto == 0 {
		// RESP2: the backplane needs nothing of RESP3, whose client checks
		// for push notifications before every read.
		*s.proto = 2
	}
}

// newClient parses url in one of New's forms and returns its client,
// with the address to name in errors.
func newClient(rawURL string) (redis.UniversalClient, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("redisbp: invalid Redis URL: %w", redactURLError(err))
	}
	q := u.Query()
	switch {
	case q.Has("master_name"):
		opt, err := redis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, "", fmt.Errorf("redisbp: invalid Sentinel URL: %w", redactURLError(err))
		}
		clientSettings{&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout,
			&opt.MaxRetries, &opt.DialerRetries, &opt.Protocol, &opt.ContextTimeoutEnabled}.apply()
		return redis.NewFailoverClient(opt), "master " + opt.MasterName + " of Sentinels " + strings.Join(opt.SentinelAddrs, ","), nil
	case q.Has("addr"):
		opt, err := redis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, "", fmt.Errorf("redisbp: invalid Cluster URL: %w", redactURLError(err))
		}
		if opt.MaxRetries == 0 {
			opt.MaxRetries = ClusterMaxRetries
		}
		clientSettings{&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout,
			&opt.MaxRetries, &opt.DialerRetries, &opt.Protocol, &opt.ContextTimeoutEnabled}.apply()
		return redis.NewClusterClient(opt), "Cluster " + strings.Join(opt.Addrs, ","), nil
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("redisbp: invalid Redis URL: %w", redactURLError(err))
	}
	clientSettings{&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout,
		&opt.MaxRetries, &opt.DialerRetries, &opt.Protocol, &opt.ContextTimeoutEnabled}.apply()
	return redis.NewClient(opt), opt.Addr, nil
}

// redactURLError drops the URL that a *url.Error repeats, since it may
// hold a password.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// NewFromClient returns a backplane on an existing client (a single node,
// a Cluster or a Sentinel client). The caller owns c: Close leaves it
// open.
func NewFromClient(c redis.UniversalClient, opts ...Option) *Backplane {
	o := options{prefix: "specter"}
	for _, opt := range opts {
		opt(&o)
	}
	if o.channel == "" {
		o.channel = o.prefix + ":bus"
	}
	return &Backplane{client: c, prefix: o.prefix, channel: o.channel, subs: map[*subscription]struct{}{}, quit: make(chan struct{})}
}

// Sharing implements backplane.Backplane: every node on the same Redis
// and prefix shares the state.
func (b *Backplane) Sharing() backplane.Sharing { return backplane.Shared }

// Close implements backplane.Backplane: it stops the subscriptions made
// with Subscribe and closes the client if New created it.
func (b *Backplane) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	subs := b.subs
	b.subs = nil
	b.mu.Unlock()
	for s := range subs {
		s.stop()
	}
	close(b.quit)
	b.background.Wait()
	if b.ownClient {
		if err := b.client.Close(); err != nil {
			return fmt.Errorf("redisbp: close: %w", err)
		}
	}
	return nil
}
