package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// Fields of the session hash, besides backplane.FieldLogLevel. The field
// of a data key is backplane.DataField(key), which starts with
// dataPrefix. Each member of a set (backplane.FieldSubscriptions or
// FieldTopics) is a field of its own, its prefix then the member, so that
// adding or removing one writes that one; a count field beside keeps the
// set's size for SetMember's limit.
const (
	fieldID           = "id"
	fieldVersion      = "version"
	fieldPrincipal    = "principal"
	fieldClient       = "client"
	fieldCapabilities = "capabilities"
	fieldCreated      = "created"
	fieldRevision     = "rev" // backplane.Session.Revision, which ClaimRequests reads
	dataPrefix        = "data:"
	subscriptionField = "sub:"   // + URI
	topicField        = "topic:" // + topic
	countPrefix       = "n:"     // + a set's prefix: how many members it has
)

// memberPrefix returns the prefix of a set's member fields.
func memberPrefix(set string) (string, error) {
	switch set {
	case backplane.FieldSubscriptions:
		return subscriptionField, nil
	case backplane.FieldTopics:
		return topicField, nil
	}
	return "", fmt.Errorf("%q is not a set of the session", set)
}

// luaExpire is a Lua function giving a key a TTL of ttl milliseconds, or
// none when ttl <= 0 (a session without expiry, or PTTL's -1).
const luaExpire = `
local function expire(key, ttl)
	if ttl > 0 then
		redis.call('PEXPIRE', key, ttl)
	else
		redis.call('PERSIST', key)
	end
end
`

// The session scripts take the session's keys in the order of
// sessionKeys.all: KEYS[1] session, KEYS[2] requests, KEYS[3] events,
// KEYS[4] meta.

// createScript replaces a session with its streams by a new one. Each
// of its keys holds a placeholder ("" in requests, events and meta) from
// the start, so that all four exist for the session's life: while its
// slot migrates, Redis Cluster answers a script whose keys are not all
// present on one node TRYAGAIN, which the client retries, for as long as
// one of them is missing on both.
// KEYS: all. ARGV: ttl ms (0: none), field, value, …
var createScript = redis.NewScript(luaTouch + `
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('HSET', KEYS[2], '', 1)
redis.call('ZADD', KEYS[3], 0, '')
redis.call('HSET', KEYS[4], '', 1)
touch(tonumber(ARGV[1]))
return 1
`)

// touchScript gives a session and its streams a new TTL; 0 if the
// session does not exist.
// KEYS: all. ARGV: ttl ms (0: none).
var touchScript = redis.NewScript(luaTouch + `
if redis.call('EXISTS', KEYS[1]) == 0 then
	return 0
end
touch(tonumber(ARGV[1]))
return 1
`)

// luaTouch is a Lua function giving a session and what goes with it (its
// streams, its request keys) a TTL of ttl milliseconds.
const luaTouch = luaExpire + `
local function touch(ttl)
	for i = 1, 4 do
		expire(KEYS[i], ttl)
	end
end
`

// admitScript is Admit: for a session that exists, it deletes request
// keys, touches the session (unless ttl is -1), claims request keys and
// returns the session hash with what it claimed; nil for no session,
// whose request keys, if a claim left some behind (see ClaimRequests), it
// deletes. A session stored without a revision (by an older version of
// this package) gets revision 0.
// KEYS: all. ARGV: ttl ms (0: none, -1: leave it), number of claims, the
// claims, the releases.
var admitScript = redis.NewScript(luaTouch + `
local n = tonumber(ARGV[2])
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then
	if #ARGV > 2 + n and redis.call('TYPE', KEYS[2])['ok'] == 'hash' then
		redis.call('HDEL', KEYS[2], unpack(ARGV, 3 + n))
	end
	return false
end
if #ARGV > 2 + n then
	redis.call('HDEL', KEYS[2], unpack(ARGV, 3 + n))
end
local rev = false
for i = 1, #h, 2 do
	if h[i] == 'rev' then
		rev = true
		break
	end
end
if not rev then
	redis.call('HSET', KEYS[1], 'rev', 0)
	h[#h + 1] = 'rev'
	h[#h + 1] = '0'
end
local got = {}
for i = 1, n do
	got[i] = redis.call('HSETNX', KEYS[2], ARGV[2 + i], 1)
end
local ttl = tonumber(ARGV[1])
if ttl >= 0 then
	touch(ttl)
end
return {h, got}
`)

// setFieldScript sets a field of a session that exists, without creating
// a session that expired or was deleted, and counts the change in its
// revision; 0 if it does not exist.
// KEYS: session. ARGV: field, value.
var setFieldScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`)

// setMemberScript adds a member field of a set of a session that exists,
// counting it, unless the set holds limit members already (0: no limit),
// or deletes it; a change counts in the session's revision. It returns -1
// if the session does not exist, 0 for a set at its limit, 1 otherwise.
// KEYS: session. ARGV: member field, count field, 1 to add or 0, limit.
var setMemberScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
	return -1
end
if ARGV[3] == '0' then
	if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
		redis.call('HINCRBY', KEYS[1], ARGV[2], -1)
		redis.call('HINCRBY', KEYS[1], 'rev', 1)
	end
	return 1
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
	return 1
end
local limit = tonumber(ARGV[4])
if limit > 0 and tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0') >= limit then
	return 0
end
redis.call('HSET', KEYS[1], ARGV[1], '')
redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`)

// deleteScript deletes a session and its streams, returning 1 if the
// session existed. The session's requests key becomes a string for
// endedTTL, a marker on which ClaimRequests's HSETNX fails rather than
// creating a hash without a TTL, should it come in just after the
// session ended.
// KEYS: all. ARGV: endedTTL in ms.
var deleteScript = redis.NewScript(`
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
if existed == 1 then
	redis.call('SET', KEYS[2], 'ended', 'PX', ARGV[1])
end
return existed
`)

// endedTTL is how long the marker of a deleted session stays: longer than
// any claim that set out before the session ended takes to arrive.
const endedTTL = time.Minute

// millis converts a TTL to the milliseconds the scripts take: 0 for
// none, and at least 1 for a positive ttl, which must not mean "none".
func millis(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return max(ttl.Milliseconds(), 1)
}

// CreateSession implements backplane.Backplane. A session with the same
// id is replaced, streams included.
func (b *Backplane) CreateSession(ctx context.Context, s *backplane.Session, ttl time.Duration) error {
	created, err := s.Created.MarshalText()
	if err != nil {
		return fmt.Errorf("redisbp: create session: %w", err)
	}
	k := b.keys(s.ID)
	args := []any{millis(ttl),
		fieldID, s.ID,
		fieldVersion, s.Version,
		backplane.FieldLogLevel, strconv.Itoa(s.LogLevel),
		fieldCreated, created,
		fieldRevision, 0,
	}
	if s.Principal != "" {
		args = append(args, fieldPrincipal, s.Principal)
	}
	if len(s.Client) > 0 {
		args = append(args, fieldClient, []byte(s.Client))
	}
	if len(s.Capabilities) > 0 {
		args = append(args, fieldCapabilities, []byte(s.Capabilities))
	}
	for _, set := range []struct {
		prefix  string
		members []string
	}{{subscriptionField, s.Subscriptions}, {topicField, s.Topics}} {
		for _, m := range set.members {
			args = append(args, set.prefix+m, "")
		}
		if len(set.members) > 0 {
			args = append(args, countPrefix+set.prefix, len(slices.Compact(slices.Sorted(slices.Values(set.members)))))
		}
	}
	for key, v := range s.Data {
		args = append(args, backplane.DataField(key), []byte(v))
	}
	if err := createScript.Run(ctx, b.client, k.all(), args...).Err(); err != nil {
		return fmt.Errorf("redisbp: create session: %w", err)
	}
	return nil
}

// LoadSession implements backplane.Backplane.
func (b *Backplane) LoadSession(ctx context.Context, id string) (*backplane.Session, error) {
	h, err := b.client.HGetAll(ctx, b.keys(id).session()).Result()
	if err != nil {
		return nil, fmt.Errorf("redisbp: load session: %w", err)
	}
	if len(h) == 0 {
		return nil, backplane.ErrNotFound
	}
	s, err := decodeSession(h)
	if err != nil {
		return nil, fmt.Errorf("redisbp: load session: %w", err)
	}
	return s, nil
}

// decodeSession rebuilds a session from its hash.
func decodeSession(h map[string]string) (*backplane.Session, error) {
	s := &backplane.Session{
		ID:        h[fieldID],
		Version:   h[fieldVersion],
		Principal: h[fieldPrincipal],
	}
	if v := h[fieldClient]; v != "" {
		s.Client = json.RawMessage(v)
	}
	if v := h[fieldCapabilities]; v != "" {
		s.Capabilities = json.RawMessage(v)
	}
	for f, v := range h {
		var err error
		switch {
		case f == backplane.FieldLogLevel:
			s.LogLevel, err = strconv.Atoi(v)
		case strings.HasPrefix(f, subscriptionField):
			s.Subscriptions = append(s.Subscriptions, f[len(subscriptionField):])
		case strings.HasPrefix(f, topicField):
			s.Topics = append(s.Topics, f[len(topicField):])
		case f == fieldCreated:
			err = s.Created.UnmarshalText([]byte(v))
		case f == fieldRevision:
			s.Revision, err = strconv.ParseUint(v, 10, 64)
		case strings.HasPrefix(f, dataPrefix):
			if s.Data == nil {
				s.Data = map[string]json.RawMessage{}
			}
			s.Data[f[len(dataPrefix):]] = json.RawMessage(v)
		}
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f, err)
		}
	}
	slices.Sort(s.Subscriptions) // a hash has no order
	slices.Sort(s.Topics)
	return s, nil
}

// TouchSession implements backplane.Backplane: the session's streams get
// the same TTL. A ttl of 0 removes the expiry.
func (b *Backplane) TouchSession(ctx context.Context, id string, ttl time.Duration) error {
	k := b.keys(id)
	n, err := touchScript.Run(ctx, b.client, k.all(), millis(ttl)).Int()
	if err != nil {
		return fmt.Errorf("redisbp: touch session: %w", err)
	}
	if n == 0 {
		return backplane.ErrNotFound
	}
	return nil
}

// Admit implements backplane.Backplane in one script, one round trip.
// Request keys live in the session's hash of requests, on the session's
// Cluster slot, and expire and go with the session.
func (b *Backplane) Admit(ctx context.Context, id string, ttl time.Duration, claims, release []string) (*backplane.Session, []bool, error) {
	return b.admit(ctx, id, millis(ttl), claims, release)
}

// admit runs admitScript; ttl is in ms, -1 to leave it.
func (b *Backplane) admit(ctx context.Context, id string, ttl int64, claims, release []string) (*backplane.Session, []bool, error) {
	args := make([]any, 0, 2+len(claims)+len(release))
	args = append(args, ttl, len(claims))
	for _, c := range claims {
		args = append(args, c)
	}
	for _, r := range release {
		args = append(args, r)
	}
	reply, err := b.batch.script(ctx, b.client, admitScript, b.keys(id).all(), args...)
	if errors.Is(err, redis.Nil) {
		return nil, nil, backplane.ErrNotFound
	}
	if err != nil {
		b.failed(err)
		return nil, nil, fmt.Errorf("redisbp: admit: %w", err)
	}
	rec, got, err := decodeAdmit(reply, len(claims))
	if err != nil {
		return nil, nil, fmt.Errorf("redisbp: admit: %w", err)
	}
	return rec, got, nil
}

// ClaimRequests implements backplane.Backplane with plain commands in one
// round trip, batched with the node's other calls: HDEL of the releases,
// HGET of the session's revision and HSETNX of each claim, on the
// session's hash of requests. A live session's hash holds a placeholder
// field for the session's life, so an HDEL never empties it.
//
// The commands are not one atomic step, so the session may end between
// them. With its revision read, the claims fail on the marker a deleted
// session leaves (deleteScript): ErrNotFound too. After a session expired
// they create its hash of requests anew, without a TTL: then the revision
// is missing, and admitScript, with the claims that succeeded as
// releases, deletes them, as it deletes the claims that a caller who
// learnt of the end later gives back. A session stored by an older
// version of this package, without a revision, takes that way too, which
// gives it one.
func (b *Backplane) ClaimRequests(ctx context.Context, id string, claims, release []string) (uint64, []bool, error) {
	k := b.keys(id)
	var (
		del  *redis.IntCmd
		rev  *redis.StringCmd
		sets = make([]*redis.BoolCmd, len(claims))
	)
	b.batch.run(ctx, b.client, func(ctx context.Context, p redis.Pipeliner) {
		if len(release) > 0 {
			del = p.HDel(ctx, k.requests(), release...)
		}
		rev = p.HGet(ctx, k.session(), fieldRevision)
		for i, c := range claims {
			sets[i] = p.HSetNX(ctx, k.requests(), c, 1)
		}
	})
	// What the pipeline gave up on goes again alone, in order.
	if del != nil && alone(del.Err()) {
		del = b.client.HDel(ctx, k.requests(), release...)
	}
	if alone(rev.Err()) {
		rev = b.client.HGet(ctx, k.session(), fieldRevision)
	}
	for i, c := range sets {
		if alone(c.Err()) {
			sets[i] = b.client.HSetNX(ctx, k.requests(), claims[i], 1)
		}
	}
	ended := false // the marker of a deleted session
	got := make([]bool, len(claims))
	for i, c := range sets {
		ok, err := c.Result()
		switch {
		case isWrongType(err):
			ended = true
		case err != nil:
			b.failed(err)
			return 0, nil, fmt.Errorf("redisbp: claim requests: %w", err)
		}
		got[i] = ok
	}
	if del != nil {
		if err := del.Err(); isWrongType(err) {
			ended = true
		} else if err != nil {
			b.failed(err)
			return 0, nil, fmt.Errorf("redisbp: claim requests: %w", err)
		}
	}
	v, err := rev.Result()
	switch {
	case ended:
		return 0, nil, backplane.ErrNotFound
	case errors.Is(err, redis.Nil):
		var strays []string // claims that created the hash anew, or claims in an old session
		for i, ok := range got {
			if ok {
				strays = append(strays, claims[i])
			}
		}
		rec, got, err := b.admit(ctx, id, -1, claims, strays)
		if err != nil {
			return 0, nil, err
		}
		return rec.Revision, got, nil
	case err != nil:
		b.failed(err)
		return 0, nil, fmt.Errorf("redisbp: claim requests: %w", err)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("redisbp: claim requests: revision %q: %w", v, err)
	}
	return n, got, nil
}

// isWrongType reports whether err is Redis's answer to a hash command on
// a key of another type: the marker of a deleted session.
func isWrongType(err error) bool { return err != nil && redis.HasErrorPrefix(err, "WRONGTYPE") }

// decodeAdmit reads admitScript's reply: the session hash as a flat
// list of fields and values, and 1 or 0 per claim.
func decodeAdmit(reply []any, claims int) (*backplane.Session, []bool, error) {
	if len(reply) != 2 {
		return nil, nil, fmt.Errorf("unexpected reply of %d parts", len(reply))
	}
	flat, _ := reply[0].([]any)
	h := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		f, _ := flat[i].(string)
		v, _ := flat[i+1].(string)
		h[f] = v
	}
	if len(h) == 0 {
		return nil, nil, backplane.ErrNotFound
	}
	rec, err := decodeSession(h)
	if err != nil {
		return nil, nil, err
	}
	flags, _ := reply[1].([]any)
	got := make([]bool, claims)
	for i := range got {
		if i < len(flags) {
			n, _ := flags[i].(int64)
			got[i] = n == 1
		}
	}
	return rec, got, nil
}

// SetField implements backplane.Backplane. It checks the value as
// backplane.Memory does before storing it.
func (b *Backplane) SetField(ctx context.Context, id, field string, value json.RawMessage) error {
	stored, err := fieldValue(field, value)
	if err != nil {
		return fmt.Errorf("redisbp: set field: %w", err)
	}
	n, err := setFieldScript.Run(ctx, b.client, []string{b.keys(id).session()}, field, stored).Int()
	if err != nil {
		return fmt.Errorf("redisbp: set field %q: %w", field, err)
	}
	if n == 0 {
		return backplane.ErrNotFound
	}
	return nil
}

// fieldValue returns what the session hash holds for a field set to
// value, or an error for an unknown field or a value of the wrong type.
func fieldValue(field string, value json.RawMessage) ([]byte, error) {
	switch {
	case field == backplane.FieldLogLevel:
		var level int
		if err := json.Unmarshal(value, &level); err != nil {
			return nil, fmt.Errorf("field %q: %w", field, err)
		}
		return strconv.AppendInt(nil, int64(level), 10), nil
	case strings.HasPrefix(field, dataPrefix):
		return value, nil
	}
	return nil, fmt.Errorf("unknown session field %q", field)
}

// SetMember implements backplane.Backplane in one script that writes the
// one member.
func (b *Backplane) SetMember(ctx context.Context, id, set, member string, on bool, limit int) error {
	prefix, err := memberPrefix(set)
	if err != nil {
		return fmt.Errorf("redisbp: set member: %w", err)
	}
	add := "0"
	if on {
		add = "1"
	}
	n, err := setMemberScript.Run(ctx, b.client, []string{b.keys(id).session()}, prefix+member, countPrefix+prefix, add, max(limit, 0)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisbp: set member of %q: %w", set, err)
	case n < 0:
		return backplane.ErrNotFound
	case n == 0:
		return backplane.ErrTooMany
	}
	return nil
}

// DeleteSession implements backplane.Backplane. It is atomic, so of
// concurrent callers exactly one sees true.
func (b *Backplane) DeleteSession(ctx context.Context, id string) (bool, error) {
	k := b.keys(id)
	n, err := deleteScript.Run(ctx, b.client, k.all(), endedTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("redisbp: delete session: %w", err)
	}
	return n == 1, nil
}
