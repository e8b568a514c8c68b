package redisbp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/backplanetest"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestContractCluster runs the contract on two nodes of a 6-node Redis
// Cluster (3 masters, 3 replicas) reached through New's Cluster URL
// form, a prefix of its own per subtest.
func TestContractCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	t.Parallel()
	c := redistest.StartCluster(t)
	var subtests int
	backplanetest.Run(t, func(t *testing.T) (backplane.Backplane, backplane.Backplane) {
		subtests++
		p := Prefix("c" + strconv.Itoa(subtests))
		return newNode(t, c.URL, p), newNode(t, c.URL, p)
	})
}

// TestNewURLForms checks which client each of New's URL forms makes, and
// that New's settings apply to each.
func TestNewURLForms(t *testing.T) {
	for _, tc := range []struct {
		url  string
		kind string
	}{
		{"redis://127.0.0.1:6379/0", "one"},
		{"redis://127.0.0.1:7000?addr=127.0.0.1:7001&addr=127.0.0.1:7002", "cluster"},
		{"redis://127.0.0.1:7000?addr=127.0.0.1:7000&read_timeout=5s", "cluster"},
		{"redis://127.0.0.1:26379?master_name=mymaster&addr=127.0.0.1:26380", "sentinel"},
	} {
		c, _, err := newClient(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		switch cl := c.(type) {
		case *redis.Client:
			// A Sentinel client is a *redis.Client too; its options say so.
			o := cl.Options()
			kind := "one"
			if o.Addr == "FailoverClient" {
				kind = "sentinel"
			}
			if kind != tc.kind || o.Protocol != 2 || o.MaxRetries != MaxRetries || o.ReadTimeout != ReadTimeout || o.DialerRetries != 1 {
				t.Errorf("%s: %s client with %+v", tc.url, kind, o)
			}
		case *redis.ClusterClient:
			o := cl.Options()
			wantRead := ReadTimeout
			if tc.url[len(tc.url)-2:] == "5s" {
				wantRead = 5 * time.Second
			}
			if tc.kind != "cluster" || o.Protocol != 2 || o.MaxRetries != ClusterMaxRetries || o.ReadTimeout != wantRead || !o.ContextTimeoutEnabled {
				t.Errorf("%s: cluster client with %+v", tc.url, o)
			}
		default:
			t.Errorf("%s: client %T", tc.url, c)
		}
		_ = c.Close()
	}
	for _, bad := range []string{
		"redis://127.0.0.1:7000?addr=127.0.0.1:7001&bogus=1",
		"redis://127.0.0.1:26379?master_name=m&bogus=1",
	} {
		if _, err := New(context.Background(), bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// sessionKeysOnCluster returns every key of session sid on the Cluster's
// masters with its TTL, whatever the layout.
func sessionKeysOnCluster(t *testing.T, b *Backplane, sid string) map[string]time.Duration {
	t.Helper()
	ctx := context.Background()
	cc := b.client.(*redis.ClusterClient)
	var mu sync.Mutex
	keys := map[string]time.Duration{}
	err := cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		iter := m.Scan(ctx, 0, b.prefix+":{"+sid+"}:*", 100).Iterator()
		for iter.Next(ctx) {
			ttl, err := m.PTTL(ctx, iter.Val()).Result()
			if err != nil {
				return err
			}
			mu.Lock()
			keys[iter.Val()] = ttl
			mu.Unlock()
		}
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSlotMigrationKeepsSessionsWhole migrates the slot of a busy
// session a key at a time while it appends, reads, is touched and is
// deleted: every script names the keys it touches, so none acts on a key
// that moved as if it were absent. Every event arrives once and in order,
// every key gets the last TTL, and a delete leaves no key behind but the
// marker of its end, which expires.
func TestSlotMigrationKeepsSessionsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	t.Parallel()
	ctx := context.Background()
	c := redistest.StartCluster(t)
	b := newNode(t, c.URL)

	busy := func(sid string) {
		if err := b.CreateSession(ctx, &backplane.Session{ID: sid}, time.Minute); err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{"a", "b", "c"} {
			if err := b.Append(ctx, sid, st, backplane.Event{Seq: 1, Data: []byte("x")}, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	busy("mig")
	mig := c.Migrate(t, b.keys("mig").session())
	// The session is busy on another goroutine while the keys move.
	var seq atomic.Uint64
	seq.Store(1)
	moved := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		defer close(failed)
		for step := 0; ; step++ {
			select {
			case <-moved:
				return
			default:
			}
			n := seq.Load() + 1
			if err := b.Append(ctx, "mig", "a", backplane.Event{Seq: n, Data: []byte("x")}, 0); err != nil {
				failed <- fmt.Errorf("step %d: append: %w", step, err)
				return
			}
			seq.Store(n)
			if _, _, err := b.Admit(ctx, "mig", time.Duration(10+step)*time.Hour, []string{"r" + strconv.Itoa(step)}, nil); err != nil {
				failed <- fmt.Errorf("step %d: admit: %w", step, err)
				return
			}
		}
	}()
	for mig.Move(t) {
	}
	mig.Finish(t)
	close(moved)
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
	if seq.Load() < 3 {
		t.Fatalf("only %d appends while the slot migrated", seq.Load())
	}
	evs, lost, err := b.Events(ctx, "mig", "a", 0)
	if err != nil || lost || uint64(len(evs)) != seq.Load() {
		t.Fatalf("after the migration: %d events (want %d), lost=%v, %v", len(evs), seq.Load(), lost, err)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	keys := sessionKeysOnCluster(t, b, "mig")
	var last time.Duration
	for _, ttl := range keys {
		last = max(last, ttl)
	}
	for k, ttl := range keys {
		if ttl < last-time.Minute {
			t.Errorf("%s: TTL %v, want the last touch's, about %v", k, ttl, last)
		}
	}

	busy("gone")
	mig = c.Migrate(t, b.keys("gone").session())
	mig.Move(t)
	deleted := make(chan error, 1)
	go func() {
		ok, err := b.DeleteSession(ctx, "gone")
		if err == nil && !ok {
			err = errors.New("the session was not there")
		}
		deleted <- err
	}()
	mig.Finish(t)
	if err := <-deleted; err != nil {
		t.Fatalf("delete while migrating: %v", err)
	}
	// Only the marker of the ended session stays, and it expires.
	for k, ttl := range sessionKeysOnCluster(t, b, "gone") {
		if k != b.keys("gone").requests() || ttl <= 0 || ttl > endedTTL {
			t.Errorf("key left after delete: %s, TTL %v", k, ttl)
		}
	}
}

// TestClusterMessagesKeepOrder: 3 nodes each publish 40 messages of one
// session on a Redis Cluster, and a fourth node receives each node's in
// the order published.
func TestClusterMessagesKeepOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	t.Parallel()
	c := redistest.StartCluster(t)
	const each = 40
	got := make(chan *backplane.Message, 3*each)
	sub := newNode(t, c.URL)
	stop, err := sub.Subscribe(func(m *backplane.Message) {
		if m.Session == "s1" {
			got <- m
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var wg sync.WaitGroup
	for p := range 3 {
		pub := newNode(t, c.URL)
		wg.Go(func() {
			for i := range each {
				m := &backplane.Message{Kind: backplane.KindNotify, Session: "s1", Method: strconv.Itoa(p), Data: []byte(strconv.Itoa(i))}
				if err := pub.Publish(context.Background(), m); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	next := make([]int, 3)
	for range 3 * each {
		var m *backplane.Message
		select {
		case m = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("messages missing: got %v of %d per publisher", next, each)
		}
		p, _ := strconv.Atoi(m.Method)
		i, _ := strconv.Atoi(string(m.Data))
		if i != next[p] {
			t.Fatalf("publisher %d: message %d arrived when %d was next", p, i, next[p])
		}
		next[p]++
	}
}
