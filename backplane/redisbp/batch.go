package redisbp

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// batch sends the calls that arrive while another is on its way to Redis
// together, in one pipeline: one write and one read for all of them
// rather than one each, which is most of what a call costs both ends. A
// call that finds none in flight goes at once, so a quiet node waits for
// nothing. No goroutine is kept: the caller that finds the batch idle
// sends it, and hands the next batch to the first caller that queued
// meanwhile.
type batch struct {
	mu      sync.Mutex
	queue   []*batchCall
	sending bool
}

// batchCall is one call in a batch.
type batchCall struct {
	queue func(context.Context, redis.Pipeliner) // adds the call's commands to the pipeline
	done  chan struct{}                          // the replies are in, or this call sends the next batch
	send  bool
}

// run has queue add the call's commands to a pipeline and sends it,
// together with the calls that queue meanwhile; the replies are in the
// commands queue made when run returns. The pipeline runs apart from
// ctx's cancellation: it carries others' calls too; the client's
// timeouts bound it.
func (q *batch) run(ctx context.Context, client redis.UniversalClient, queue func(context.Context, redis.Pipeliner)) {
	c := &batchCall{queue: queue, done: make(chan struct{}, 1)}
	q.mu.Lock()
	q.queue = append(q.queue, c)
	if q.sending {
		q.mu.Unlock()
		<-c.done
		if !c.send {
			return
		}
	} else {
		q.sending = true
		q.mu.Unlock()
	}
	q.sendQueued(context.WithoutCancel(ctx), client)
}

// sendQueued sends the queued calls, the sender's own among them, and
// hands the next batch on.
func (q *batch) sendQueued(ctx context.Context, client redis.UniversalClient) {
	q.mu.Lock()
	calls := q.queue
	q.queue = nil
	q.mu.Unlock()

	// The commands' own errors are in the commands.
	_, _ = client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range calls {
			c.queue(ctx, p)
		}
		return nil
	})

	q.mu.Lock()
	var next *batchCall
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

// script runs s with keys and args in the batch and returns its reply.
// Should Redis have lost the script (a restart, SCRIPT FLUSH), or should
// the pipeline give up on it (see alone), it goes again alone, with Run,
// which loads it and retries as the client does any command.
func (q *batch) script(ctx context.Context, client redis.UniversalClient, s *redis.Script, keys []string, args ...any) ([]any, error) {
	var cmd *redis.Cmd
	q.run(ctx, client, func(ctx context.Context, p redis.Pipeliner) { cmd = s.EvalSha(ctx, p, keys, args...) })
	reply, err := cmd.Slice()
	if err != nil && (redis.HasErrorPrefix(err, "NOSCRIPT") || alone(err)) {
		reply, err = s.Run(ctx, client, keys, args...).Slice()
	}
	return reply, err
}

// alone reports whether a command that failed in a pipeline with err is
// worth sending again alone: a Cluster's answer while a slot migrates or
// fails over (TRYAGAIN, MOVED, ASK, CLUSTERDOWN), which a pipeline
// follows only a few times without waiting, or not at all, while a
// command alone waits it out with the client's retries.
func alone(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "TRYAGAIN") || redis.HasErrorPrefix(err, "MOVED") ||
		redis.HasErrorPrefix(err, "ASK") || redis.HasErrorPrefix(err, "CLUSTERDOWN")
}
