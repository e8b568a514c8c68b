package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
)

// A task is one string key, "<prefix>:task:<id>", holding the JSON of its
// backplane.Task and expiring with it; an owner's listed tasks are
// indexed in a sorted set, "<prefix>:tasks:<owner>", scored by expiry.
// The two keys may live on different Cluster slots, so they are written
// in order: the index first, then the record. A failure between the two
// leaves an index entry without a record, which ListTasks skips and
// removes; never a record that the index misses.

// putTaskScript stores a task unless a final one is stored.
// KEYS: task. ARGV: JSON, expiry (unix ms).
var putTaskScript = redis.NewScript(`
local old = redis.call('GET', KEYS[1])
if old and cjson.decode(old).final then
	return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
return 1
`)

// indexTaskScript adds a task to its owner's index, drops the expired
// ones, and keeps the index as long as its last task.
// KEYS: index. ARGV: id, expiry (unix ms), now (unix ms).
var indexTaskScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
`)

func (b *Backplane) taskKey(id string) string      { return b.prefix + ":task:" + id }
func (b *Backplane) taskIndex(owner string) string { return b.prefix + ":tasks:" + owner }

// PutTask implements backplane.Backplane.
func (b *Backplane) PutTask(ctx context.Context, t *backplane.Task) (bool, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("redisbp: put task: %w", err)
	}
	exp := t.Expires.UnixMilli()
	if !t.Unlisted {
		err := indexTaskScript.Run(ctx, b.client, []string{b.taskIndex(t.Owner)}, t.ID, exp, time.Now().UnixMilli()).Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			return false, fmt.Errorf("redisbp: put task: index: %w", err)
		}
	}
	n, err := putTaskScript.Run(ctx, b.client, []string{b.taskKey(t.ID)}, raw, exp).Int()
	if err != nil {
		return false, fmt.Errorf("redisbp: put task: %w", err)
	}
	return n == 1, nil
}

// LoadTask implements backplane.Backplane.
func (b *Backplane) LoadTask(ctx context.Context, id string) (*backplane.Task, error) {
	raw, err := b.client.Get(ctx, b.taskKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, backplane.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisbp: load task: %w", err)
	}
	var t backplane.Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("redisbp: load task %s: %w", id, err)
	}
	return &t, nil
}

// ListTasks implements backplane.Backplane.
func (b *Backplane) ListTasks(ctx context.Context, owner string) ([]*backplane.Task, error) {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	ids, err := b.client.ZRangeByScore(ctx, b.taskIndex(owner), &redis.ZRangeBy{Min: "(" + now, Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("redisbp: list tasks: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	pipe := b.client.Pipeline()
	gets := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		gets[i] = pipe.Get(ctx, b.taskKey(id))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisbp: list tasks: %w", err)
	}
	out := make([]*backplane.Task, 0, len(ids))
	var orphans []any
	for i, g := range gets {
		raw, err := g.Bytes()
		if errors.Is(err, redis.Nil) {
			// Expired since the index was read, or never written: its
			// writer failed after the index.
			orphans = append(orphans, ids[i])
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("redisbp: list tasks: %w", err)
		}
		var t backplane.Task
		if json.Unmarshal(raw, &t) == nil {
			out = append(out, &t)
		}
	}
	if len(orphans) > 0 {
		// Best effort: the next reader skips them again.
		_ = b.client.ZRem(ctx, b.taskIndex(owner), orphans...).Err()
	}
	return out, nil
}
