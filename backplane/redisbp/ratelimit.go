package redisbp

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// RateStore keeps the token buckets of a rate limit on Redis, so that
// every node of a deployment draws from the same bucket: n nodes allow a
// caller the limit's rate, not n times it. It implements
// middleware.RateStore:
//
//	bp, err := redisbp.New(ctx, url)
//	...
//	limit := middleware.RateLimitWithConfig(middleware.RateLimitConfig{Rate: 5, Burst: 10, Store: bp.RateStore()})
//
// A bucket is one key holding its theoretical arrival time (the generic
// cell rate algorithm, which behaves exactly as a token bucket), read and
// written by one script per take, so takes on any nodes are atomic. The
// key's hash tag is the bucket's own key, "<prefix>:rate:{<key>}", so a
// Cluster spreads buckets over its slots whatever the prefix. Each key
// expires when its bucket would be full again: an idle caller leaves
// nothing behind. Times come from Redis's clock (TIME), so that nodes
// whose clocks differ agree.
type RateStore struct {
	client redis.UniversalClient
	prefix string
}

// NewRateStore returns a RateStore on c whose keys begin with prefix.
// The caller owns c.
func NewRateStore(c redis.UniversalClient, prefix string) *RateStore {
	return &RateStore{client: c, prefix: prefix}
}

// RateStore returns a RateStore on the backplane's client and key prefix.
func (b *Backplane) RateStore() *RateStore { return NewRateStore(b.client, b.prefix) }

// takeScript takes a token. Times are in microseconds, which a Lua
// number holds exactly.
// KEYS: bucket. ARGV: emission interval (µs a token takes to come back),
// burst. It returns {1, 0} for a token, or {0, µs until one comes back}.
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local interval = tonumber(ARGV[1])
local tolerance = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then
	tat = now
end
local next = tat + interval
if next - now > tolerance then
	return {0, math.ceil(next - now - tolerance)}
end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.max(1, math.ceil((next - now) / 1000)))
return {1, 0}
`)

// maxWait bounds the wait reported for absurdly slow rates.
const maxWait = 24 * time.Hour

// Take implements middleware.RateStore.
func (s *RateStore) Take(ctx context.Context, key string, rate float64, burst int) (bool, time.Duration, error) {
	if !(rate > 0) || burst < 1 {
		return false, 0, fmt.Errorf("redisbp: rate limit %q: rate %v and burst %d must be positive", key, rate, burst)
	}
	interval := strconv.FormatFloat(1e6/rate, 'f', -1, 64)
	res, err := takeScript.Run(ctx, s.client, []string{s.prefix + ":rate:{" + key + "}"}, interval, burst).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redisbp: rate limit %q: %w", key, err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("redisbp: rate limit %q: unexpected reply %v", key, res)
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	if res[1] >= maxWait.Microseconds() {
		return false, maxWait, nil
	}
	return false, time.Duration(res[1]) * time.Microsecond, nil
}
