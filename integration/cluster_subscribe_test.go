package integration

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestClusterConcurrentSubscribesStick sends 24 resources/subscribe of
// one session at once through 3 nodes, on one Redis and on a Redis
// Cluster: all are answered OK, and all are kept, as the unsubscribe
// hook that runs for each subscription left when the session ends shows.
func TestClusterConcurrentSubscribesStick(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis servers; skipped with -short")
	}
	t.Run("redis", func(t *testing.T) { concurrentSubscribes(t, redistest.Start(t).URL) })
	t.Run("cluster", func(t *testing.T) { concurrentSubscribes(t, redistest.StartCluster(t).URL) })
}

func concurrentSubscribes(t *testing.T, redisURL string) {
	const n = 24
	var mu sync.Mutex
	stopped := map[string]bool{}
	ended := make(chan struct{})
	items := func(r *specter.Router) {
		r.Resource("app://items/:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply("item " + p.String("id"))
		}, specter.Description("An item"))
	}
	nodes := newCluster(t, redisURL, 3, items,
		specter.OnSubscribe(func(*specter.Context, string, specter.Params) error { return nil }),
		specter.OnUnsubscribe(func(_ *specter.Session, uri string) {
			mu.Lock()
			defer mu.Unlock()
			stopped[uri] = true
			if len(stopped) == n {
				close(ended)
			}
		}))
	a := join(t, nodes[0])
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := on(t, a, nodes[i%3])
			resp, err := c.Call(ctx(t), "resources/subscribe", map[string]string{"uri": fmt.Sprintf("app://items/%d", i)})
			if err != nil || resp.Error != nil {
				t.Errorf("subscribe %d: %+v %v", i, resp, err)
			}
		})
	}
	wg.Wait()
	if _, err := on(t, a, nodes[1]).Delete(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// The hooks run as the session ends; a subscription that was not
	// kept has no hook to wait for.
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stopped) != n {
		t.Fatalf("%d of %d subscriptions were kept", len(stopped), n)
	}
}
