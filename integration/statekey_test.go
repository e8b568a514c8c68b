package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcp"
)

// TestSharedBackplaneWithoutStateKeyWarns: a router whose backplane is
// shared between nodes (Redis) but that seals requestState with a key of
// its own says so at startup, since a 2026-07-28 retry that reaches
// another node would be refused (TestStatelessRequestStateBoundToKey). With
// a StateKey, in memory, or without the 2026-07-28 revision, there is
// nothing to warn about.
func TestSharedBackplaneWithoutStateKeyWarns(t *testing.T) {
	redis := redistest.Start(t)
	bp, err := redisbp.New(context.Background(), redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bp.Close() })
	const warning = "the backplane is shared between nodes but StateKey is not set"
	tests := []struct {
		name string
		opts []specter.RouterOption
		warn bool
	}{
		{"Redis, no StateKey", []specter.RouterOption{specter.Backplane(bp)}, true},
		{"Redis and a StateKey", []specter.RouterOption{specter.Backplane(bp), specter.StateKey([]byte("every node's key"))}, false},
		{"Redis, session era only", []specter.RouterOption{specter.Backplane(bp), specter.Versions(mcp.LatestSessionVersion)}, false},
		{"in memory", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log lockedBuffer
			r := specter.NewRouter("node", "1.0.0", append([]specter.RouterOption{specter.Logger(zerolog.New(&log))}, tc.opts...)...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = r.Shutdown(ctx)
			if got := strings.Contains(log.String(), warning); got != tc.warn {
				t.Errorf("warned %v, want %v; the log:\n%s", got, tc.warn, log.String())
			}
		})
	}
}

// An empty StateKey (an unset environment variable) would seal every
// requestState with a key anyone can compute: NewRouter refuses it.
func TestEmptyStateKeyIsRefused(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "StateKey is empty") {
			t.Errorf("NewRouter with an empty StateKey panicked with %v", r)
		}
	}()
	specter.NewRouter("node", "1.0.0", quiet, specter.StateKey([]byte("")))
}
