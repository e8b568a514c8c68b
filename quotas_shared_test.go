package specter_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
)

// quotaNode is a router named by X-User on a Redis backplane under
// prefix, on its own HTTP server: a node of a deployment.
type quotaNode struct {
	bp  *redisbp.Backplane
	srv *httptest.Server
}

func startQuotaNode(t *testing.T, redisURL, prefix string, opts ...specter.RouterOption) *quotaNode {
	t.Helper()
	bp, err := redisbp.New(context.Background(), redisURL, redisbp.Prefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	r := specter.NewRouter("quotas", "1.0.0", append([]specter.RouterOption{specter.Logger(zerolog.Nop()), specter.Backplane(bp)}, opts...)...)
	r.Connect(func(c *specter.Context) error {
		c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
		return nil
	})
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.CloseClientConnections()
		srv.Close()
		_ = bp.Close()
	})
	return &quotaNode{bp: bp, srv: srv}
}

// stream opens a session of user on n and its GET stream.
func (n *quotaNode) stream(t *testing.T, user string) (*mcptest.Stream, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := mcptest.NewClient(n.srv.URL)
	c.HTTP = n.srv.Client()
	c.Header.Set("X-User", user)
	if _, err := c.Initialize(ctx, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	return c.Listen(context.Background(), "")
}

// A node that dies (kill -9: it lets nothing go) stops counting against
// its callers' shared quotas once its entries run out unrenewed, while a
// live node's entries, renewed, go on counting.
func TestSharedQuotaOfADeadNode(t *testing.T) {
	redis := redistest.Start(t)
	const ttl = time.Second
	opts := []specter.RouterOption{specter.MaxStreamsPerPrincipal(2), specter.HeldTTL(ttl)}
	a := startQuotaNode(t, redis.URL, "dead", opts...)
	b := startQuotaNode(t, redis.URL, "dead", opts...)
	for _, n := range []*quotaNode{a, b} {
		s, err := n.stream(t, "alice")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	var refused *mcptest.StatusError
	if _, err := b.stream(t, "alice"); !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests {
		t.Fatalf("a 3rd GET stream with 2 held on two nodes: %v, want 429", err)
	}
	// Both nodes renew their entries: each one's end moves later. (Not
	// timed: a node stalled past the ttl lets its entry run out, which
	// only lets more in.)
	admin := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer admin.Close()
	ends := func() map[string]float64 {
		zs, err := admin.ZRangeWithScores(context.Background(), "dead:quota:{streams principal:alice}", 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, z := range zs {
			m[z.Member.(string)] = z.Score
		}
		return m
	}
	first := ends()
	if len(first) != 2 {
		t.Fatalf("entries %v, want one per node", first)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(ttl / 4) {
		now, renewed := ends(), 0
		for entry, end := range first {
			if now[entry] > end {
				renewed++
			}
		}
		if renewed == len(first) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("entries %v, then %v: not renewed by both nodes", first, now)
		}
	}
	// a dies: it reaches Redis no more, renews nothing and lets nothing
	// go, and its streams' connections break.
	_ = a.bp.Close()
	a.srv.CloseClientConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := b.stream(t, "alice")
		if err == nil {
			s.Close()
			break
		}
		if !errors.As(err, &refused) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal(fmt.Errorf("the dead node's stream still counts after 10 s: %w", err))
		}
		time.Sleep(ttl / 4)
	}
}
