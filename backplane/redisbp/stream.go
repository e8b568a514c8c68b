package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// luaSeq holds Lua functions on the seqs of stored events. Lua numbers
// are doubles, exact only up to 2^53, so seqs stay decimal strings (no
// leading zeros, as Go writes them) and are compared as such.
const luaSeq = `
local function seq(event)
	return string.match(event, '"s":(%d+)')
end
local function greater(a, b)
	if #a ~= #b then
		return #a > #b
	end
	for i = 1, #a do
		local x, y = string.byte(a, i), string.byte(b, i)
		if x ~= y then
			return x > y
		end
	end
	return false
end
`

// appendScript adds an event to a stream and drops the oldest events
// while the stream holds more than limit bytes of data, keeping at least
// the new one. The size of a dropped event is that of its base64 "d"
// field decoded. The meta hash keeps, besides size and lost, the highest
// seq appended (max) and whether an event ever came with a lower seq
// than an earlier one (unordered), for eventsScript. The stream's keys
// get the session's remaining TTL. It returns 0 if the session does not
// exist.
// KEYS: session, streams, stream, meta. ARGV: stream name, event JSON,
// seq, data size, limit (<= 0: none).
var appendScript = redis.NewScript(luaExpire + luaSeq + `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
	return 0
end
redis.call('RPUSH', KEYS[3], ARGV[2])
local max = redis.call('HGET', KEYS[4], 'max')
if max and greater(max, ARGV[3]) then
	redis.call('HSET', KEYS[4], 'unordered', 1)
else
	redis.call('HSET', KEYS[4], 'max', ARGV[3])
end
local size = redis.call('HINCRBY', KEYS[4], 'size', ARGV[4])
local limit = tonumber(ARGV[5])
if limit > 0 then
	while size > limit and redis.call('LLEN', KEYS[3]) > 1 do
		local old = redis.call('LPOP', KEYS[3])
		local d = string.match(old, '"d":"([^"]*)"') or ''
		local n = #d / 4 * 3 - #string.match(d, '=*$')
		if n > 0 then -- HINCRBY takes no "-0"
			size = redis.call('HINCRBY', KEYS[4], 'size', -n)
		end
		redis.call('HSET', KEYS[4], 'lost', seq(old))
	end
end
redis.call('SADD', KEYS[2], ARGV[1])
expire(KEYS[2], ttl)
expire(KEYS[3], ttl)
expire(KEYS[4], ttl)
return 1
`)

// eventsScript returns the lost seq of a stream ("0" if none) followed
// by its events with a Seq greater than after, or nil if the session or
// the stream does not exist (a stream that exists holds at least one
// event: Append keeps the newest). While seqs only grew, the events
// wanted are the tail of the list, found from its end: a reader that
// follows a stream costs in proportion to what is new, not to the
// buffer. Otherwise it scans the whole list.
// KEYS: session, stream, meta. ARGV: after.
var eventsScript = redis.NewScript(luaSeq + `
if redis.call('EXISTS', KEYS[1]) == 0 then
	return nil
end
local n = redis.call('LLEN', KEYS[2])
if n == 0 then
	return nil
end
local r = {redis.call('HGET', KEYS[3], 'lost') or '0'}
if redis.call('HEXISTS', KEYS[3], 'unordered') == 1 then
	for _, e in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
		if greater(seq(e), ARGV[1]) then
			r[#r + 1] = e
		end
	end
	return r
end
local k = 0
while k < n and greater(seq(redis.call('LINDEX', KEYS[2], -k - 1)), ARGV[1]) do
	k = k + 1
end
if k > 0 then
	for _, e in ipairs(redis.call('LRANGE', KEYS[2], -k, -1)) do
		r[#r + 1] = e
	end
end
return r
`)

// Append implements backplane.Backplane. An event is stored as the JSON
// of backplane.Event, with Data in base64, which appendScript reads back
// to account for the events it drops.
func (b *Backplane) Append(ctx context.Context, session, stream string, ev backplane.Event, limit int) error {
	js, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("redisbp: append: %w", err)
	}
	k := b.keys(session)
	keys := []string{k.session(), k.streams(), k.stream(stream), k.meta(stream)}
	n, err := appendScript.Run(ctx, b.client, keys, stream, js, strconv.FormatUint(ev.Seq, 10), len(ev.Data), limit).Int()
	if err != nil {
		return fmt.Errorf("redisbp: append: %w", err)
	}
	if n == 0 {
		return backplane.ErrNotFound
	}
	return nil
}

// Events implements backplane.Backplane.
func (b *Backplane) Events(ctx context.Context, session, stream string, after uint64) ([]backplane.Event, bool, error) {
	k := b.keys(session)
	keys := []string{k.session(), k.stream(stream), k.meta(stream)}
	r, err := eventsScript.RunRO(ctx, b.client, keys, strconv.FormatUint(after, 10)).StringSlice()
	if errors.Is(err, redis.Nil) {
		return nil, false, backplane.ErrNotFound
	}
	if err != nil {
		return nil, false, fmt.Errorf("redisbp: events: %w", err)
	}
	lost, err := strconv.ParseUint(r[0], 10, 64)
	if err != nil {
		return nil, false, fmt.Errorf("redisbp: events: lost seq: %w", err)
	}
	var evs []backplane.Event
	if len(r) > 1 {
		evs = make([]backplane.Event, len(r)-1)
	}
	for i, js := range r[1:] {
		if err := json.Unmarshal([]byte(js), &evs[i]); err != nil {
			return nil, false, fmt.Errorf("redisbp: events: %w", err)
		}
	}
	return evs, lost > after, nil
}

// DropStream implements backplane.Backplane.
func (b *Backplane) DropStream(ctx context.Context, session, stream string) error {
	k := b.keys(session)
	_, err := b.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k.stream(stream), k.meta(stream))
		p.SRem(ctx, k.streams(), stream)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisbp: drop stream: %w", err)
	}
	return nil
}
