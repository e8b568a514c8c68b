package redisbp

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// A quota (backplane.Quotas) is one sorted set, hash-tagged by its own
// key so that a Cluster spreads callers over its slots and each script
// touches one key:
//
//	<prefix>:quota:{<key>}  entry → when it runs out (ms, Redis's clock), or
//	                        session id → when it was added
//
// A set expires once every entry in it would have run out; a set of
// sessions, sessionKeep after its last new session (sessions in use may
// outlive that: they stop counting then, so a caller that keeps
// sessions alive for a day without starting one may start up to the
// limit again).

var _ backplane.Quotas = (*Backplane)(nil)

// sessionKeep is how long a set of sessions outlives its last new one.
const sessionKeep = 24 * time.Hour

func (b *Backplane) quotaKey(key string) string { return b.prefix + ":quota:{" + key + "}" }

// holdScript drops the entries that ran out, then adds one if there is
// room. KEYS: the set. ARGV: ttl (ms), entry, limit.
var holdScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
	return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then
	redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1
`)

// renewScript gives the entries still held ttl more.
// KEYS: the set. ARGV: ttl (ms), entries...
var renewScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do
	local ends = redis.call('ZSCORE', KEYS[1], ARGV[i])
	if ends and tonumber(ends) > now then
		redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
	end
end
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('PTTL', KEYS[1]) < ttl then
	redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1
`)

// holdSessionScript adds a session if there is room. It does not look at
// the sessions themselves, which live on other slots: without room it
// returns the sessions counted, for the caller to check.
// KEYS: the set. ARGV: keep (ms), id, limit.
var holdSessionScript = redis.NewScript(`
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
	return redis.call('ZRANGE', KEYS[1], 0, -1)
end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// Hold implements backplane.Quotas.
func (b *Backplane) Hold(ctx context.Context, key, entry string, ttl time.Duration, limit int) (bool, error) {
	ok, err := holdScript.Run(ctx, b.client, []string{b.quotaKey(key)}, millis(ttl), entry, limit).Bool()
	if err != nil {
		return false, fmt.Errorf("redisbp: hold %s of %s: %w", entry, key, err)
	}
	return ok, nil
}

// Renew implements backplane.Quotas.
func (b *Backplane) Renew(ctx context.Context, key string, entries []string, ttl time.Duration) error {
	args := make([]any, 0, 1+len(entries))
	args = append(args, millis(ttl))
	for _, e := range entries {
		args = append(args, e)
	}
	if err := renewScript.Run(ctx, b.client, []string{b.quotaKey(key)}, args...).Err(); err != nil {
		return fmt.Errorf("redisbp: renew the entries of %s: %w", key, err)
	}
	return nil
}

// Unhold implements backplane.Quotas.
func (b *Backplane) Unhold(ctx context.Context, key, entry string) error {
	if err := b.client.ZRem(ctx, b.quotaKey(key), entry).Err(); err != nil {
		return fmt.Errorf("redisbp: let %s of %s go: %w", entry, key, err)
	}
	return nil
}

// HoldSession implements backplane.Quotas. At the limit, it asks which
// of the sessions counted still exist (one pipelined EXISTS each, on
// their own slots), drops the others, and tries once more: a caller at
// its limit pays for the check, nobody else.
func (b *Backplane) HoldSession(ctx context.Context, key, id string, limit int) (bool, error) {
	set := b.quotaKey(key)
	hold := func() (bool, []string, error) {
		res, err := holdSessionScript.Run(ctx, b.client, []string{set}, millis(sessionKeep), id, limit).Result()
		if err != nil {
			return false, nil, fmt.Errorf("redisbp: hold session %s of %s: %w", id, key, err)
		}
		if ids, ok := res.([]any); ok {
			counted := make([]string, 0, len(ids))
			for _, s := range ids {
				counted = append(counted, fmt.Sprint(s))
			}
			return false, counted, nil
		}
		return true, nil, nil
	}
	ok, counted, err := hold()
	if ok || err != nil || len(counted) == 0 {
		return ok, err
	}
	exists := make([]*redis.IntCmd, len(counted))
	if _, err := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, s := range counted {
			exists[i] = p.Exists(ctx, b.keys(s).session())
		}
		return nil
	}); err != nil {
		return false, fmt.Errorf("redisbp: sessions of %s: %w", key, err)
	}
	var gone []any
	for i, c := range exists {
		if c.Val() == 0 {
			gone = append(gone, counted[i])
		}
	}
	if len(gone) == 0 {
		return false, nil
	}
	if err := b.client.ZRem(ctx, set, gone...).Err(); err != nil {
		return false, fmt.Errorf("redisbp: drop ended sessions of %s: %w", key, err)
	}
	ok, _, err = hold()
	return ok, err
}
