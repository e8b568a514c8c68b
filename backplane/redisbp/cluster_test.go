package redisbp

import (
	"context"
	"strconv"
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
			if tc.kind != "cluster" || o.Protocol != 2 || o.MaxRetries != MaxRetries || o.ReadTimeout != wantRead || !o.ContextTimeoutEnabled {
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
