package redisbp

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// batch sends the calls of one script that arrive while another is on
// its way to Redis together, in one pipeline: one write and one read for
// all of them rather than one each, which is most of what a call costs
// both ends. A call that finds none in flight goes at once, so a quiet
// node waits for nothing. No goroutine is kept: the caller that finds
// the batch idle sends it, and hands the next batch to the first caller
// that queued meanwhile.
type batch struct {
	script *redis.Script

	mu      sync.Mutex
	queue   []*scriptCall
	sending bool
}

// scriptCall is one script call in a batch.
type scriptCall struct {
	keys  []string
	args  []any
	reply []any
	err   error
	done  chan struct{} // the reply is in, or this call sends the next batch
	send  bool
}

// run calls the script with keys and args, together with the calls that
// queue meanwhile. The pipeline runs apart from ctx's cancellation: it
// carries others' calls too; the client's timeouts bound it.
func (q *batch) run(ctx context.Context, client redis.UniversalClient, keys []string, args ...any) ([]any, error) {
	c := &scriptCall{keys: keys, args: args, done: make(chan struct{}, 1)}
	q.mu.Lock()
	q.queue = append(q.queue, c)
	if q.sending {
		q.mu.Unlock()
		<-c.done
		if !c.send {
			return c.reply, c.err
		}
	} else {
		q.sending = true
		q.mu.Unlock()
	}
	q.sendQueued(context.WithoutCancel(ctx), client)
	return c.reply, c.err
}

// sendQueued sends the queued calls, the sender's own among them, and
// hands the next batch on.
func (q *batch) sendQueued(ctx context.Context, client redis.UniversalClient) {
	q.mu.Lock()
	calls := q.queue
	q.queue = nil
	q.mu.Unlock()

	if len(calls) == 1 {
		c := calls[0]
		c.reply, c.err = q.script.Run(ctx, client, c.keys, c.args...).Slice()
	} else {
		cmds := make([]*redis.Cmd, len(calls))
		_, _ = client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, c := range calls {
				cmds[i] = q.script.EvalSha(ctx, p, c.keys, c.args...)
			}
			return nil
		})
		for i, c := range calls {
			c.reply, c.err = cmds[i].Slice()
			if c.err != nil && redis.HasErrorPrefix(c.err, "NOSCRIPT") {
				// Redis lost the script (a restart, SCRIPT FLUSH): Run loads it.
				c.reply, c.err = q.script.Run(ctx, client, c.keys, c.args...).Slice()
			}
		}
	}

	q.mu.Lock()
	var next *scriptCall
	if len(q.queue) > 0 {
		next = q.queue[0]
		next.send = true
	} else {
		q.sending = false
	}
	q.mu.Unlock()
	// calls[0] is the sender's own: the first queued when it took over.
	for _, c := range calls[1:] {
		c.done <- struct{}{}
	}
	if next != nil {
		next.done <- struct{}{}
	}
}
