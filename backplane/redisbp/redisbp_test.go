package redisbp

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/redis/go-redis/v9"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/backplanetest"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newNode returns a backplane on the Redis at url, closed when the test
// ends.
func newNode(t testing.TB, url string, opts ...Option) *Backplane {
	t.Helper()
	b, err := New(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// TestContract runs the contract on two nodes sharing one Redis, emptied
// before every subtest.
func TestSharing(t *testing.T) {
	// Nodes on one Redis share sessions; no server is needed to say so.
	if got := NewFromClient(nil).Sharing(); got != backplane.Shared {
		t.Errorf("Sharing() = %v, want shared", got)
	}
}

func TestContract(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	backplanetest.Run(t, func(t *testing.T) (backplane.Backplane, backplane.Backplane) {
		a, b := newNode(t, srv.URL), newNode(t, srv.URL)
		if err := a.client.FlushDB(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		return a, b
	})
}

// TestContractPrefix runs the contract with a prefix of its own per
// subtest, never emptying Redis, next to a default-prefix deployment
// holding the same session ids and claim key and listening on its
// channel: the contract passes only if the prefixes keep them apart.
func TestContractPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	other := newNode(t, srv.URL)
	for _, id := range []string{"s1", "s", "small", "e1", "nope"} {
		if err := other.CreateSession(ctx, &backplane.Session{ID: id}, 0); err != nil {
			t.Fatal(err)
		}
		if err := other.Append(ctx, id, "st", backplane.Event{Seq: 99, Data: []byte("other")}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := other.Claim(ctx, "k", time.Minute); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	var leaked atomic.Int32
	stop, err := other.Subscribe(func(*backplane.Message) { leaked.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	var subtests int
	backplanetest.Run(t, func(t *testing.T) (backplane.Backplane, backplane.Backplane) {
		subtests++
		p := Prefix("tenant" + strconv.Itoa(subtests))
		return newNode(t, srv.URL, p), newNode(t, srv.URL, p)
	})

	if n := leaked.Load(); n != 0 {
		t.Errorf("the default channel got %d messages of another prefix", n)
	}
	for _, id := range []string{"s1", "s", "small", "e1"} {
		evs, _, err := other.Events(ctx, id, "st", 0)
		if err != nil || len(evs) != 1 || evs[0].Seq != 99 {
			t.Errorf("session %q of the default prefix: %v %v", id, evs, err)
		}
	}
	if _, err := other.LoadSession(ctx, "nope"); err != nil {
		t.Errorf("session of the default prefix: %v", err)
	}
}

func TestNewBadURL(t *testing.T) {
	_, err := New(context.Background(), "redis://user:secret@127.0.0.1:1/x")
	if err == nil {
		t.Fatal("bad database number accepted")
	}
	_, err = New(context.Background(), "redis://user:secret@%zz")
	if err == nil {
		t.Fatal("bad URL accepted")
	}
	if s := err.Error(); !strings.HasPrefix(s, "redisbp:") || strings.Contains(s, "secret") {
		t.Errorf("error %q: want a redisbp error without the password", s)
	}
}

// New without a server fails, saying where it could not connect and why;
// that it fails promptly (one dial per try) is TestRedisDown's count, on
// a client with the same settings.
func TestNewUnreachable(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop()
	_, err := New(context.Background(), srv.URL)
	if err == nil || !strings.HasPrefix(err.Error(), "redisbp: connect to ") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("New without a server: %v, want an error naming the address and the refusal", err)
	}
}

func TestNewSpeaksRESP2UnlessTheURLSaysOtherwise(t *testing.T) {
	srv := redistest.Start(t)
	for url, want := range map[string]int{srv.URL: 2, srv.URL + "?protocol=3": 3} {
		b := newNode(t, url)
		if got := b.client.(*redis.Client).Options().Protocol; got != want {
			t.Errorf("%s: protocol %d, want %d", url, got, want)
		}
		if err := b.CreateSession(context.Background(), &backplane.Session{ID: "s" + strconv.Itoa(want), Version: "2025-11-25"}, time.Minute); err != nil {
			t.Errorf("%s: %v", url, err)
		}
	}
}
