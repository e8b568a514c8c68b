package integration

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// TestRedisBusGapTellsListeners breaks every node's subscription to the
// bus between nodes (CLIENT KILL TYPE pubsub): what was published until
// go-redis subscribed again is lost, so a session's GET stream and a
// subscriptions/listen stream on the node are told, in the spec's terms,
// to list and read again what they follow: each list changed, each
// subscribed resource was updated.
func TestRedisBusGapTellsListeners(t *testing.T) {
	srv := redistest.Start(t)
	nodes := newCluster(t, srv.URL, 2, nil)
	const uri = "test://watched-resource"

	c := join(t, nodes[1])
	if _, err := on(t, c, nodes[0]).Call(ctx(t), "resources/subscribe", map[string]string{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	get, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Close()

	sc := mcptest.NewStatelessClient(nodes[1].url)
	sc.HTTP = nodes[1].srv.Client()
	listen, err := sc.Listen(ctx(t), mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{uri}})
	if err != nil {
		t.Fatal(err)
	}
	defer listen.Close()
	if m, err := listen.Next(ctx(t)); err != nil || m.Method != mcp.NotificationSubscriptionsAck {
		t.Fatalf("listen: %+v %v, want the acknowledgement", m, err)
	}
	// Both streams are attached: a notification reaches them.
	nodes[0].r.NotifyPromptsChanged()
	if m, _, err := get.Next(); err != nil || m.Method != mcp.NotificationPromptsChanged {
		t.Fatalf("GET stream before the gap: %+v %v", m, err)
	}

	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	if err := admin.Do(context.Background(), "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}

	want := map[string]bool{mcp.NotificationToolsChanged: true, mcp.NotificationPromptsChanged: true,
		mcp.NotificationResourcesChanged: true, mcp.NotificationResourceUpdated: true}
	for seen := map[string]bool{}; len(seen) < len(want); {
		m, _, err := get.Next()
		if err != nil {
			t.Fatalf("GET stream after the gap, having %v: %v", seen, err)
		}
		if !want[m.Method] || m.Method == mcp.NotificationResourceUpdated && updatedURI(t, m) != uri {
			t.Fatalf("GET stream after the gap: unexpected %s %s", m.Method, m.Params)
		}
		seen[m.Method] = true
	}

	lctx, cancel := context.WithTimeout(ctx(t), 15*time.Second)
	defer cancel()
	for seen := map[string]bool{}; len(seen) < 2; {
		m, err := listen.Next(lctx)
		if err != nil {
			t.Fatalf("listen stream after the gap, having %v: %v", seen, err)
		}
		switch m.Method {
		case mcp.NotificationToolsChanged:
		case mcp.NotificationResourceUpdated:
			if updatedURI(t, m) != uri {
				t.Fatalf("listen stream: an update of %s", m.Params)
			}
		default:
			t.Fatalf("listen stream after the gap: %s %s, which its filter did not ask for", m.Method, m.Params)
		}
		seen[m.Method] = true
	}
}

// updatedURI is the uri of a notifications/resources/updated.
func updatedURI(t *testing.T, m *jsonrpc.Message) string {
	t.Helper()
	var p mcp.ResourceUpdatedParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.URI
}
