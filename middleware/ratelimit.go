package middleware

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/principal"
)

// RateLimitConfig configures RateLimitWithConfig.
type RateLimitConfig struct {
	// Skipper skips the limit for a request when it returns true.
	// Default: nil (limit every request).
	Skipper func(*http.Request) bool
	// Rate is how many requests per second each key may make in the long
	// run: its bucket refills at this rate. Each request of a JSON-RPC
	// batch counts as one. Required, > 0.
	Rate float64
	// Burst is how many requests a key may make at once: the size of its
	// bucket, which starts full. Required, >= 1.
	Burst int
	// Key names the bucket a request draws from. Default: the ID of the
	// authenticated principal (principal.FromContext), else the client IP
	// of the connection (RemoteAddr). X-Forwarded-For is not trusted by
	// default, since any client can set it; behind a trusted proxy, supply
	// a Key that reads the header the proxy sets.
	Key func(*http.Request) string
	// MaxKeys bounds how many buckets are kept in process. When a new key
	// arrives at the bound, the least recently used bucket is dropped; its
	// key starts over with a full bucket if it returns. Default: 100,000.
	// It does not apply to a Store.
	MaxKeys int
	// Now tells the time of the in-process buckets, for tests. Default:
	// time.Now. A Store keeps its own time.
	Now func() time.Time
	// Store keeps the buckets somewhere every node of a deployment sees,
	// so that n nodes together allow Rate, not n times Rate: for example
	// the Redis store of package backplane/redisbp (Backplane.RateStore).
	// Default: nil, the buckets live in this process.
	Store RateStore
	// FailClosed refuses requests with 503 Service Unavailable while the
	// Store fails (Redis is unreachable). By default they are let
	// through, with a warning on Logger at most every StoreWarnEvery: a
	// limit protects capacity, and an outage of its store should not
	// refuse calls that need nothing else of it (2026-07-28 requests, or
	// an application whose sessions live in memory). Set it where the
	// limit protects something that must not be overrun, such as a paid
	// upstream. (The further requests of a batch are then answered with
	// the rate-limit error, retry after 1 s.)
	FailClosed bool
	// Logger receives the Store's failures. Default: zerolog's global
	// logger (log.Logger).
	Logger *zerolog.Logger
}

// RateStore keeps token buckets for RateLimitWithConfig outside the
// process. Implementations are safe for concurrent use and take a token
// atomically, whichever node asks.
type RateStore interface {
	// Take takes one token from key's bucket, which holds up to burst
	// tokens, starts full and refills at rate tokens per second. When the
	// bucket is empty it takes nothing and returns false with the time
	// until a token will be there. An error means the store could not
	// answer (then ok and wait mean nothing).
	Take(ctx context.Context, key string, rate float64, burst int) (ok bool, wait time.Duration, err error)
}

// StoreWarnEvery is the least time between two warnings about a failing
// RateStore, so that an outage logs a line now and then, not one per
// request.
const StoreWarnEvery = 10 * time.Second

// DefaultRateLimitMaxKeys is the default of RateLimitConfig.MaxKeys.
const DefaultRateLimitMaxKeys = 100_000

// RateLimit limits each caller to rate requests per second with bursts of
// up to burst: see RateLimitWithConfig.
func RateLimit(rate float64, burst int) func(http.Handler) http.Handler {
	return RateLimitWithConfig(RateLimitConfig{Rate: rate, Burst: burst})
}

// RateLimitWithConfig returns middleware that gives every key (by default
// every caller) a token bucket: a request takes a token or, with the
// bucket empty, is refused with 429 Too Many Requests, a Retry-After
// header in whole seconds (rounded up) and a JSON-RPC error body without
// an id. The refusal does not wait for the request's body: it closes the
// connection instead. Memory stays bounded by MaxKeys. It panics if cfg
// is invalid.
//
// The limit counts MCP messages, not HTTP requests. A JSON-RPC batch
// (protocol version 2025-03-26) is admitted with one token like any
// request, and a Specter router behind the middleware takes one more
// token from the same bucket for each further request in the batch. Each
// request the bucket has no token for is answered, in the batch's answer,
// with a JSON-RPC error of its own and does not run:
//
//	{"code":-32000,"message":"Too Many Requests: rate limit exceeded, retry after 3 s","data":{"retryAfter":3}}
//
// The requests within the budget run as usual. Notifications and
// responses in a batch take no token.
//
// Place it after authentication (auth.JWT) so that the principal is known
// and callers behind one IP address are limited separately. Limits differ
// per route by using one instance per Echo group or route:
//
//	tools := e.Group("/mcp", auth.JWT(cfg), echo.WrapMiddleware(middleware.RateLimit(5, 10)))
//	e.POST("/search", search, echo.WrapMiddleware(middleware.RateLimit(1, 3)))
//
// Each instance keeps its own buckets, in process unless it has a Store.
// With a Store, the buckets of one instance are its keys in the store:
// give instances that must count apart Keys that differ (or stores
// with different prefixes), and every node the same Rate and Burst.
func RateLimitWithConfig(cfg RateLimitConfig) func(http.Handler) http.Handler {
	if !(cfg.Rate > 0) || math.IsInf(cfg.Rate, 0) {
		panic("middleware: RateLimit needs a positive, finite Rate (requests per second)")
	}
	if cfg.Burst < 1 {
		panic("middleware: RateLimit needs a Burst of at least 1")
	}
	if cfg.MaxKeys < 0 {
		panic("middleware: RateLimit MaxKeys must not be negative")
	}
	if cfg.MaxKeys == 0 {
		cfg.MaxKeys = DefaultRateLimitMaxKeys
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	var b buckets = newLimiter(cfg)
	if cfg.Store != nil {
		st := &storeLimiter{cfg: cfg, log: cfg.Logger}
		if st.log == nil {
			st.log = &zlog.Logger
		}
		b = st
	}
	key := defaultKey
	if cfg.Key != nil {
		key = func(r *http.Request) bucketKey { return bucketKey{custom: true, id: cfg.Key(r)} }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.Skipper != nil && cfg.Skipper(r) {
				next.ServeHTTP(w, r)
				return
			}
			k := key(r)
			switch ok, wait, err := b.take(r.Context(), k); {
			case err != nil && cfg.FailClosed:
				w.Header().Set("Retry-After", strconv.Itoa(refusal.RetrySeconds(storeRetry)))
				refusal.AbandonBody(w, r)
				refusal.Write(w, nil, refusal.LimiterUnavailable)
			case !ok:
				tooMany(w, r, wait)
			default:
				next.ServeHTTP(w, r.WithContext(reqctx.WithBudget(r.Context(), allowance{b, r.Context(), k})))
			}
		})
	}
}

// buckets are where a limit's token buckets live: in process (limiter)
// or in a RateStore (storeLimiter). take takes a token from k's bucket;
// when there is none it returns false and the time until there will be
// one. An error is the store's failure, after its policy was applied.
type buckets interface {
	take(ctx context.Context, k bucketKey) (ok bool, wait time.Duration, err error)
}

// storeLimiter takes tokens from a RateStore and applies the failure
// policy.
type storeLimiter struct {
	cfg    RateLimitConfig
	log    *zerolog.Logger
	warned atomic.Int64 // unix ns of the last warning
}

// storeRetry is the wait a refused message of a batch is told while the
// store fails closed.
const storeRetry = time.Second

// take takes a token for k. When the store fails, it allows (open) or
// refuses with storeRetry (closed), and returns the error.
func (s *storeLimiter) take(ctx context.Context, k bucketKey) (bool, time.Duration, error) {
	ok, wait, err := s.cfg.Store.Take(ctx, k.String(), s.cfg.Rate, s.cfg.Burst)
	if err == nil {
		return ok, wait, nil
	}
	now := time.Now().UnixNano()
	if last := s.warned.Load(); now-last >= int64(StoreWarnEvery) && s.warned.CompareAndSwap(last, now) {
		policy := "requests are let through until it answers (FailClosed is off)"
		if s.cfg.FailClosed {
			policy = "requests are refused with 503 until it answers (FailClosed)"
		}
		s.log.Warn().Err(err).Msg("specter: the rate limit's store failed; " + policy)
	}
	if s.cfg.FailClosed {
		return false, storeRetry, err
	}
	return true, 0, err
}

// allowance is a key's bucket as the budget of one admitted request: the
// router takes a token from it for each further request of a batch.
type allowance struct {
	b   buckets
	ctx context.Context
	k   bucketKey
}

func (a allowance) Take() (bool, time.Duration) {
	ok, wait, _ := a.b.take(a.ctx, a.k)
	return ok, wait
}

// bucketKey keeps principals and IP addresses apart, so that a caller
// whose ID reads like an address never shares that address's bucket.
type bucketKey struct {
	principal bool
	custom    bool // from RateLimitConfig.Key
	id        string
}

// String is the key of the bucket in a RateStore: a RateLimitConfig.Key
// as it is, the default keys in namespaces of their own.
func (k bucketKey) String() string {
	switch {
	case k.custom:
		return k.id
	case k.principal:
		return "principal:" + k.id
	}
	return "ip:" + k.id
}

func defaultKey(r *http.Request) bucketKey {
	if p, ok := principal.FromContext(r.Context()); ok && p.ID != "" {
		return bucketKey{principal: true, id: p.ID}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return bucketKey{id: host}
}

// bucket is one key's token bucket, linked into the LRU list.
type bucket struct {
	key        bucketKey
	tokens     float64
	last       time.Time // when tokens was last brought up to date
	prev, next *bucket
}

// limiter holds the buckets in a map for lookup and a circular doubly
// linked list (most recently used first) for eviction. One mutex guards
// both: the critical section is a few dozen nanoseconds.
type limiter struct {
	rate, burst float64
	max         int
	now         func() time.Time

	mu      sync.Mutex
	buckets map[bucketKey]*bucket
	lru     bucket // sentinel: lru.next is the newest bucket, lru.prev the oldest
}

func newLimiter(cfg RateLimitConfig) *limiter {
	l := &limiter{
		rate:    cfg.Rate,
		burst:   float64(cfg.Burst),
		max:     cfg.MaxKeys,
		now:     cfg.Now,
		buckets: make(map[bucketKey]*bucket),
	}
	l.lru.prev, l.lru.next = &l.lru, &l.lru
	return l
}

// take takes a token from k's bucket. When there is none, it returns
// false and the time until there will be one, at most a day (absurdly
// slow rates must not overflow a Duration).
func (l *limiter) take(_ context.Context, k bucketKey) (ok bool, wait time.Duration, err error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[k]
	switch {
	case b != nil:
		l.unlink(b)
		if d := now.Sub(b.last); d > 0 {
			b.tokens = min(l.burst, b.tokens+d.Seconds()*l.rate)
			b.last = now
		}
	case len(l.buckets) >= l.max:
		b = l.lru.prev // reuse the oldest bucket for the new key
		l.unlink(b)
		delete(l.buckets, b.key)
		*b = bucket{key: k, tokens: l.burst, last: now}
		l.buckets[k] = b
	default:
		b = &bucket{key: k, tokens: l.burst, last: now}
		l.buckets[k] = b
	}
	b.prev, b.next = &l.lru, l.lru.next
	b.next.prev = b
	l.lru.next = b
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	return false, time.Duration(min((1-b.tokens)/l.rate, 86400) * float64(time.Second)), nil
}

func (l *limiter) unlink(b *bucket) {
	b.prev.next, b.next.prev = b.next, b.prev
}

// tooMany refuses a request that found its bucket empty, wait before the
// next token. The request's body is left unread, and a client
// that trickles it must not hold the answer.
func tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := refusal.RetrySeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	refusal.AbandonBody(w, r)
	refusal.Write(w, nil, refusal.TooManyRequests(secs))
}
