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

// A session's streams share two keys. Their events are members of one
// sorted set, all of score 0 so that they sort by member, each
// "<name>\x00<n>\x00<event JSON>" with n the event's place in its stream
// (20 digits), so a stream is a range of the set in the order appended:
// from "[<name>\x00" to "(<name>\x01". Their counters are fields of one
// hash, "<counter>:<name>": z, the bytes of event data held (present
// while the stream exists); n, events appended; l, the seq last
// dropped; m, the highest seq appended; u, set once a seq came lower than
// m, for eventsScript.

// luaStream holds Lua functions on the members of a stream: ARGV[1] is
// its name, and its range in the sorted set runs from lo to hi.
const luaStream = `
local name = ARGV[1]
local lo, hi = '[' .. name .. '\0', '(' .. name .. '\1'
local function event(member)
	return string.sub(member, #name + 23)
end
`

// appendScript adds an event to a stream and drops the oldest events
// while the stream holds more than limit bytes of data, keeping at least
// the new one. The size of a dropped event is that of its base64 "d"
// field decoded. The stream's keys get the session's remaining TTL. It
// returns 0 if the session does not exist.
// KEYS: session, events, meta. ARGV: stream name, event JSON, seq, data
// size, limit (<= 0: none).
var appendScript = redis.NewScript(luaExpire + luaSeq + luaStream + `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
	return 0
end
local n = redis.call('HINCRBY', KEYS[3], 'n:' .. name, 1)
redis.call('ZADD', KEYS[2], 0, name .. '\0' .. string.format('%020d', n) .. '\0' .. ARGV[2])
local max = redis.call('HGET', KEYS[3], 'm:' .. name)
if max and greater(max, ARGV[3]) then
	redis.call('HSET', KEYS[3], 'u:' .. name, 1)
else
	redis.call('HSET', KEYS[3], 'm:' .. name, ARGV[3])
end
local size = redis.call('HINCRBY', KEYS[3], 'z:' .. name, ARGV[4])
local limit = tonumber(ARGV[5])
if limit > 0 then
	while size > limit and redis.call('ZLEXCOUNT', KEYS[2], lo, hi) > 1 do
		local oldest = redis.call('ZRANGEBYLEX', KEYS[2], lo, hi, 'LIMIT', 0, 1)[1]
		redis.call('ZREM', KEYS[2], oldest)
		local old = event(oldest)
		local d = string.match(old, '"d":"([^"]*)"') or ''
		local n = #d / 4 * 3 - #string.match(d, '=*$')
		if n > 0 then -- HINCRBY takes no "-0"
			size = redis.call('HINCRBY', KEYS[3], 'z:' .. name, -n)
		end
		redis.call('HSET', KEYS[3], 'l:' .. name, seq(old))
	end
end
expire(KEYS[2], ttl)
expire(KEYS[3], ttl)
return 1
`)

// eventsScript returns the lost seq of a stream ("0" if none) followed
// by its events with a Seq greater than after, or nil if the session or
// the stream does not exist (a stream that exists holds at least one
// event: Append keeps the newest). While seqs only grew, the events
// wanted are the end of the stream's range, read backwards a few at a
// time: a reader that follows a stream costs in proportion to what is
// new, not to the buffer. Otherwise it scans the whole range.
// KEYS: session, events, meta. ARGV: stream name, after.
var eventsScript = redis.NewScript(luaSeq + luaStream + `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[3], 'z:' .. name) == 0 then
	return nil
end
local after = ARGV[2]
local r = {redis.call('HGET', KEYS[3], 'l:' .. name) or '0'}
if redis.call('HEXISTS', KEYS[3], 'u:' .. name) == 1 then
	for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], lo, hi)) do
		local e = event(m)
		if greater(seq(e), after) then
			r[#r + 1] = e
		end
	end
	return r
end
local newer, offset, page = {}, 0, 16
while true do
	local ms = redis.call('ZREVRANGEBYLEX', KEYS[2], hi, lo, 'LIMIT', offset, page)
	local stop = #ms < page
	for _, m in ipairs(ms) do
		local e = event(m)
		if not greater(seq(e), after) then
			stop = true
			break
		end
		newer[#newer + 1] = e
	end
	if stop then
		break
	end
	offset, page = offset + page, page * 2
end
for i = #newer, 1, -1 do
	r[#r + 1] = newer[i]
end
return r
`)

// headScript returns the oldest event of a stream, or nil if the session
// or the stream does not exist.
// KEYS: session, events, meta. ARGV: stream name.
var headScript = redis.NewScript(luaStream + `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[3], 'z:' .. name) == 0 then
	return nil
end
local m = redis.call('ZRANGEBYLEX', KEYS[2], lo, hi, 'LIMIT', 0, 1)[1]
if not m then
	return nil
end
return event(m)
`)

// dropStreamScript deletes a stream's events and counters.
// KEYS: events, meta. ARGV: stream name.
var dropStreamScript = redis.NewScript(luaStream + `
redis.call('ZREMRANGEBYLEX', KEYS[1], lo, hi)
redis.call('HDEL', KEYS[2], 'z:' .. name, 'n:' .. name, 'l:' .. name, 'm:' .. name, 'u:' .. name)
return 1
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
	keys := []string{k.session(), k.events(), k.meta()}
	g := b.guard(ctx, keys[0])
	if err := g.check(); err != nil {
		return fmt.Errorf("redisbp: append: %w", err)
	}
	n, err := appendScript.Run(ctx, b.client, keys, stream, js, strconv.FormatUint(ev.Seq, 10), len(ev.Data), limit).Int()
	b.done(ctx, g, err)
	if err != nil {
		b.failed(err)
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
	keys := []string{k.session(), k.events(), k.meta()}
	g := b.guard(ctx, keys[0])
	if err := g.check(); err != nil {
		return nil, false, fmt.Errorf("redisbp: events: %w", err)
	}
	r, err := eventsScript.RunRO(ctx, b.client, keys, stream, strconv.FormatUint(after, 10)).StringSlice()
	b.done(ctx, g, err)
	if errors.Is(err, redis.Nil) {
		return nil, false, backplane.ErrNotFound
	}
	if err != nil {
		b.failed(err)
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

// Head implements backplane.Backplane.
func (b *Backplane) Head(ctx context.Context, session, stream string) (backplane.Event, error) {
	k := b.keys(session)
	js, err := headScript.RunRO(ctx, b.client, []string{k.session(), k.events(), k.meta()}, stream).Text()
	if errors.Is(err, redis.Nil) {
		return backplane.Event{}, backplane.ErrNotFound
	}
	if err != nil {
		b.failed(err)
		return backplane.Event{}, fmt.Errorf("redisbp: head: %w", err)
	}
	var ev backplane.Event
	if err := json.Unmarshal([]byte(js), &ev); err != nil {
		return backplane.Event{}, fmt.Errorf("redisbp: head: %w", err)
	}
	return ev, nil
}

// DropStream implements backplane.Backplane.
func (b *Backplane) DropStream(ctx context.Context, session, stream string) error {
	k := b.keys(session)
	g := b.guard(ctx, k.events())
	if err := g.check(); err != nil {
		return fmt.Errorf("redisbp: drop stream: %w", err)
	}
	err := dropStreamScript.Run(ctx, b.client, []string{k.events(), k.meta()}, stream).Err()
	b.done(ctx, g, err)
	if err != nil {
		return fmt.Errorf("redisbp: drop stream: %w", err)
	}
	return nil
}
