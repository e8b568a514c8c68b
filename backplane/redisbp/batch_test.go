package redisbp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestConcurrentAdmitsShareRoundTrips admits from many goroutines at once,
// so that calls queue behind one another and go in pipelines, and checks
// that each caller gets its own session and its own claims' answers; and
// that a script Redis lost is loaded again.
func TestConcurrentAdmitsShareRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	b := newNode(t, srv.URL)
	ctx := context.Background()
	pipelines := &pipelineCounter{}
	b.client.AddHook(pipelines)
	const sessions, rounds = 32, 20
	for i := range sessions {
		rec := &backplane.Session{ID: fmt.Sprintf("s%02d", i), Version: "2025-11-25", Principal: fmt.Sprint("p", i), Created: time.Now()}
		if err := b.CreateSession(ctx, rec, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for round := range rounds {
		if round == rounds/2 {
			if err := b.client.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for i := range sessions {
			wg.Go(func() {
				id := fmt.Sprintf("s%02d", i)
				// Each round claims a fresh key and one already held.
				claims := []string{fmt.Sprint("r", round), "held"}
				rec, got, err := b.Admit(ctx, id, time.Minute, claims, nil)
				switch {
				case err != nil:
					t.Errorf("%s round %d: %v", id, round, err)
				case rec.ID != id || rec.Principal != fmt.Sprint("p", i):
					t.Errorf("%s round %d: got the record of %s (%s)", id, round, rec.ID, rec.Principal)
				case !got[0] || got[1] != (round == 0):
					t.Errorf("%s round %d: claims %v", id, round, got)
				}
			})
		}
		wg.Wait()
	}
	if pipelines.n.Load() == 0 {
		t.Error("no admits went together in a pipeline")
	}
	if _, _, err := b.Admit(ctx, "absent", time.Minute, []string{"r"}, nil); err != backplane.ErrNotFound {
		t.Errorf("admitting an unknown session: %v, want ErrNotFound", err)
	}
}

// pipelineCounter counts the pipelines of more than one command.
type pipelineCounter struct{ n atomic.Int64 }

func (*pipelineCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (*pipelineCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (p *pipelineCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 1 {
			p.n.Add(1)
		}
		return next(ctx, cmds)
	}
}
