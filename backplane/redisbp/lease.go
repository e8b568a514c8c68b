package redisbp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// Leases of nodes (backplane.Leases) live under one hash tag, "{nodes}",
// so that a Cluster keeps them on one slot and a script changes a lease
// and its work together:
//
//	<prefix>:{nodes}:leases       sorted set: node → when its lease ends (ms, Redis's clock)
//	<prefix>:{nodes}:work:<node>  set: the entries of what node runs
//
// A node writes them about once a second, whatever its traffic. Times
// come from Redis's clock (TIME), so that nodes whose clocks differ agree
// on which lease lapsed.

var _ backplane.Leases = (*Backplane)(nil)

// workKeep is how long a work set outlives its node's last renewal when
// nobody takes it over (a deployment whose every node died): it does not
// stay forever.
const workKeep = time.Hour

// heartbeatScript renews a lease and replaces its work.
// KEYS: leases, work. ARGV: ttl (ms), keep (ms), node, entries...
var heartbeatScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
redis.call('DEL', KEYS[2])
for i = 4, #ARGV, 5000 do
	redis.call('SADD', KEYS[2], unpack(ARGV, i, math.min(i + 4999, #ARGV)))
end
if #ARGV >= 4 then
	redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 1
`)

// takeOverScript claims the node whose lease ended first, if one did,
// by extending its lease for the claimant's hold.
// KEYS: leases. ARGV: hold (ms).
var takeOverScript = redis.NewScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - 1, 'LIMIT', 0, 1)
if #lapsed == 0 then
	return false
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), lapsed[1])
return lapsed[1]
`)

func (b *Backplane) leasesKey() string          { return b.prefix + ":{nodes}:leases" }
func (b *Backplane) workKey(node string) string { return b.prefix + ":{nodes}:work:" + node }

// Heartbeat implements backplane.Leases.
func (b *Backplane) Heartbeat(ctx context.Context, node string, ttl time.Duration, work []string) error {
	args := make([]any, 0, 3+len(work))
	args = append(args, millis(ttl), millis(workKeep), node)
	for _, w := range work {
		args = append(args, w)
	}
	if err := heartbeatScript.Run(ctx, b.client, []string{b.leasesKey(), b.workKey(node)}, args...).Err(); err != nil {
		return fmt.Errorf("redisbp: heartbeat: %w", err)
	}
	return nil
}

// TakeOver implements backplane.Leases.
func (b *Backplane) TakeOver(ctx context.Context, hold time.Duration) (string, []string, error) {
	node, err := takeOverScript.Run(ctx, b.client, []string{b.leasesKey()}, millis(hold)).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("redisbp: take over: %w", err)
	}
	work, err := b.client.SMembers(ctx, b.workKey(node)).Result()
	if err != nil {
		return "", nil, fmt.Errorf("redisbp: take over %s: %w", node, err)
	}
	return node, work, nil
}

// Alive implements backplane.Leases.
func (b *Backplane) Alive(ctx context.Context, node string) (bool, error) {
	err := b.client.ZScore(ctx, b.leasesKey(), node).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, redis.Nil):
		return false, nil
	}
	return false, fmt.Errorf("redisbp: lease of %s: %w", node, err)
}

// Done implements backplane.Leases.
func (b *Backplane) Done(ctx context.Context, node string) error {
	pipe := b.client.TxPipeline()
	pipe.ZRem(ctx, b.leasesKey(), node)
	pipe.Del(ctx, b.workKey(node))
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("redisbp: done with node %s: %w", node, err)
	}
	return nil
}
