package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resourceServer serves r over HTTP with headers large enough for the
// 2026-07-28 Mcp-Name of a long URI, and returns a session-era client
// (initialized) and a 2026-07-28 one.
func resourceServer(t *testing.T, r *specter.Router) (*mcptest.Client, *mcptest.StatelessClient) {
	t.Helper()
	srv := httptest.NewUnstartedServer(r.Handler())
	srv.Config.MaxHeaderBytes = 8 << 20
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = r.Shutdown(ctx(t)) })
	legacy := mcptest.NewClient(srv.URL)
	legacy.HTTP = srv.Client()
	if _, err := legacy.Initialize(ctx(t), mcp.Version20251125); err != nil {
		t.Fatal(err)
	}
	stateless := mcptest.NewStatelessClient(srv.URL)
	stateless.HTTP = srv.Client()
	return legacy, stateless
}

// A 2 MiB URI under a template's literal prefix costs the server
// milliseconds of CPU and is refused with -32602, in both eras, for
// resources/read and resources/subscribe: it is refused for its length
// before any template is matched (issue 19, item 1).
func TestLongResourceURICostsLittle(t *testing.T) {
	r := specter.NewRouter("uris", "1.0", quiet)
	r.Resource("test://template/{id}/data", func(_ specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("data of " + req.Name)
	}, specter.Description("A templated resource"))
	legacy, stateless := resourceServer(t, r)
	long := "test://template/" + strings.Repeat("a", 2<<20) + "/data"

	for _, tc := range []struct {
		name   string
		call   func(params map[string]any) (*mcptest.Response, error)
		status int
	}{
		{"session resources/read", func(p map[string]any) (*mcptest.Response, error) {
			return legacy.Call(ctx(t), mcp.MethodResourcesRead, p)
		}, http.StatusOK},
		{"session resources/subscribe", func(p map[string]any) (*mcptest.Response, error) {
			return legacy.Call(ctx(t), mcp.MethodResourcesSubscribe, p)
		}, http.StatusOK},
		{"2026-07-28 resources/read", func(p map[string]any) (*mcptest.Response, error) {
			return stateless.Call(ctx(t), mcp.MethodResourcesRead, p)
		}, http.StatusBadRequest},
	} {
		// A URI of the template's own shape is still served.
		if resp, err := tc.call(map[string]any{"uri": "test://template/42/data"}); err != nil || resp.Error != nil {
			t.Fatalf("%s of a short URI: %v %+v", tc.name, err, resp)
		}
		before := cpuTime(t)
		resp, err := tc.call(map[string]any{"uri": long})
		spent := cpuTime(t) - before
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		t.Logf("%s of a %d-byte URI: %v of CPU (client and server), answered %d %+v", tc.name, len(long), spent, resp.Status, resp.Error)
		if resp.Status != tc.status || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams ||
			!strings.Contains(resp.Error.Message, "at most 4096") {
			t.Errorf("%s: HTTP %d %+v; want %d and -32602 naming the limit", tc.name, resp.Status, resp.Error, tc.status)
		}
		// About 30 ms (300 ms under the race detector), most of it the
		// client's and server's JSON and headers; matching the URI took
		// 3–8 s.
		bound := 150 * time.Millisecond
		if raceEnabled {
			bound *= 10
		}
		if spent > bound {
			t.Errorf("%s of a %d-byte URI cost %v of CPU; the bound is %v", tc.name, len(long), spent, bound)
		}
	}
}

// Every spelling of a URI meets the checks its plain spelling meets:
// HideResources("app://docs/secret") hides app://docs/%73ecret and every
// other percent-encoding of it, in both eras, for resources/read and
// resources/subscribe; an allow-list admits the encoded spelling of what
// it allows; a fixed URI with Scopes is not served by a template under
// an encoded spelling; and the handler sees the one canonical URI
// (issue 19, item 3).
func TestEncodedURIsMeetTheSameChecks(t *testing.T) {
	r := specter.NewRouter("uris", "1.0", quiet)
	served := func(p specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(req.Name + " " + p.String("name") + p.String("item"))
	}
	r.Resource("app://docs/{name}", served, specter.Description("Documents"))
	r.Resource("app://vault/key", served, specter.Description("The key"), specter.Scopes("vault:read"))
	r.Resource("app://vault/{item}", served, specter.Description("Vault items"))
	r.Connect(func(c *specter.Context) error {
		if c.HTTPRequest().Header.Get("X-Only-Public") != "" {
			c.AllowResources("app://docs/public")
		} else {
			c.HideResources("app://docs/secret")
		}
		return nil
	})
	legacy, stateless := resourceServer(t, r)
	onlyPublic := mcptest.NewStatelessClient(stateless.URL)
	onlyPublic.HTTP, onlyPublic.Header = stateless.HTTP, http.Header{"X-Only-Public": {"1"}}

	type caller struct {
		name string
		call func(method, uri string) (*mcptest.Response, error)
	}
	callers := []caller{
		{"session", func(method, uri string) (*mcptest.Response, error) {
			return legacy.Call(ctx(t), method, map[string]any{"uri": uri})
		}},
		{"2026-07-28", func(method, uri string) (*mcptest.Response, error) {
			return stateless.Call(ctx(t), method, map[string]any{"uri": uri})
		}},
	}
	outcome := func(resp *mcptest.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error != nil {
			return fmt.Sprintf("error %d", resp.Error.Code)
		}
		var res mcp.ReadResourceResult
		if json.Unmarshal(resp.Result, &res) == nil && len(res.Contents) == 1 && res.Contents[0].Text != nil {
			return *res.Contents[0].Text
		}
		return string(resp.Result)
	}
	spellings := map[string][]string{
		"app://docs/secret": {"app://docs/%73ecret", "app://docs/secre%74", "app://docs/%73%65%63%72%65%74",
			"%61%70%70://%64%6f%63%73/%73%65%63%72%65%74", "app://docs/sec%72et"},
		"app://vault/key": {"app://vault/%6Bey", "app://vault/%6b%65%79"},
	}
	for _, c := range callers {
		for plain, encoded := range spellings {
			want := outcome(c.call(mcp.MethodResourcesRead, plain))
			if !strings.HasPrefix(want, "error ") {
				t.Fatalf("%s: %s is served: %q", c.name, plain, want)
			}
			for _, uri := range encoded {
				if got := outcome(c.call(mcp.MethodResourcesRead, uri)); got != want {
					t.Errorf("%s resources/read %s = %q; %s gets %q", c.name, uri, got, plain, want)
				}
			}
			if c.name != "session" {
				continue
			}
			want = outcome(c.call(mcp.MethodResourcesSubscribe, plain))
			for _, uri := range encoded {
				if got := outcome(c.call(mcp.MethodResourcesSubscribe, uri)); got != want {
					t.Errorf("%s resources/subscribe %s = %q; %s gets %q", c.name, uri, got, plain, want)
				}
			}
		}
		// What is visible is served under any spelling, as its one URI.
		if got := outcome(c.call(mcp.MethodResourcesRead, "app://docs/%70ubli%63")); got != "app://docs/public public" {
			t.Errorf("%s: app://docs/%%70ubli%%63 = %q; want app://docs/public, name public", c.name, got)
		}
	}
	// An allow-list admits the encoded spelling of what it names, and
	// nothing else.
	for uri, want := range map[string]string{"app://docs/%70ublic": "app://docs/public public", "app://docs/%73ecret": "error -32602"} {
		resp, err := onlyPublic.Call(ctx(t), mcp.MethodResourcesRead, map[string]any{"uri": uri})
		if got := outcome(resp, err); got != want {
			t.Errorf("allow-list: %s = %q; want %q", uri, got, want)
		}
	}
}

// redisInputBytes is what the Redis server has received so far (INFO
// stats total_net_input_bytes).
func redisInputBytes(t *testing.T, rdb *goredis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(ctx(t), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_net_input_bytes:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no total_net_input_bytes in INFO stats")
	return 0
}

// subscriber is a session on a Redis-backed node with a template to
// subscribe to.
func subscriber(t *testing.T, redis *redistest.Server, opts ...specter.RouterOption) *mcptest.Client {
	t.Helper()
	nodes := newCluster(t, redis.URL, 1, func(r *specter.Router) {
		r.Resource("sub://items/{id}", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("item")
		}, specter.Description("Items to follow"))
	}, opts...)
	return join(t, nodes[0])
}

// itemURI is the i-th of the URIs subscribe tests follow: about 100 bytes.
func itemURI(i int) string { return fmt.Sprintf("sub://items/%05d-%s", i, strings.Repeat("x", 80)) }

// 2,000 resources/subscribe of one session write O(n) bytes to Redis,
// one member a subscription: the second thousand costs what the first
// did (issue 19, item 4: 2,000 wrote 127 MiB, each rewriting the whole
// list).
func TestSubscriptionsWriteOneMemberEach(t *testing.T) {
	redis := redistest.Start(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer rdb.Close()
	c := subscriber(t, redis, specter.MaxSubscriptionsPerSession(0))
	var written [2]int64
	for half := range written {
		before := redisInputBytes(t, rdb)
		for i := half * 1000; i < (half+1)*1000; i++ {
			resp, err := c.Call(ctx(t), mcp.MethodResourcesSubscribe, map[string]any{"uri": itemURI(i)})
			if err != nil || resp.Error != nil {
				t.Fatalf("subscribe %d: %v %+v", i, err, resp)
			}
		}
		written[half] = redisInputBytes(t, rdb) - before
	}
	t.Logf("Redis received %d bytes for subscriptions 1-1000, %d for 1001-2000 (%d a subscription on average)",
		written[0], written[1], (written[0]+written[1])/2000)
	if per := (written[0] + written[1]) / 2000; per > 2048 {
		t.Errorf("a subscription costs Redis %d bytes; the bound is 2 KiB", per)
	}
	if written[1] > written[0]*3/2 {
		t.Errorf("the second thousand wrote %d bytes, the first %d: writes grow with the list", written[1], written[0])
	}
	unsub, err := c.Call(ctx(t), mcp.MethodResourcesUnsubscribe, map[string]any{"uri": itemURI(7)})
	if err != nil || unsub.Error != nil {
		t.Fatalf("unsubscribe: %v %+v", err, unsub)
	}
}

// A session follows at most MaxSubscriptionsPerSession resources (256):
// the next resources/subscribe answers -32000 naming the limit, until it
// unsubscribes from one; a 2026-07-28 listen filter naming more is
// refused with 400 (issue 19, item 4).
func TestSubscriptionsPerSessionCapped(t *testing.T) {
	redis := redistest.Start(t)
	c := subscriber(t, redis)
	subscribe := func(uri string) *jsonrpc.Error {
		t.Helper()
		resp, err := c.Call(ctx(t), mcp.MethodResourcesSubscribe, map[string]any{"uri": uri})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Error
	}
	for i := range 256 {
		if e := subscribe(itemURI(i)); e != nil {
			t.Fatalf("subscribe %d: %v", i, e)
		}
	}
	if e := subscribe(itemURI(0)); e != nil {
		t.Errorf("subscribing again to a followed resource: %v", e)
	}
	if e := subscribe(itemURI(256)); e == nil || e.Code != -32000 || !strings.Contains(e.Message, "256 resources") {
		t.Errorf("subscription 257: %v; want -32000 naming the limit of 256", e)
	}
	if resp, err := c.Call(ctx(t), mcp.MethodResourcesUnsubscribe, map[string]any{"uri": itemURI(3)}); err != nil || resp.Error != nil {
		t.Fatalf("unsubscribe: %v %+v", err, resp)
	}
	if e := subscribe(itemURI(256)); e != nil {
		t.Errorf("subscribing after an unsubscribe: %v", e)
	}

	stateless := mcptest.NewStatelessClient(c.URL)
	uris := make([]string, 257)
	for i := range uris {
		uris[i] = itemURI(i)
	}
	resp, err := stateless.Send(ctx(t), stateless.Request(mcp.MethodSubscriptionsListen, map[string]any{
		"notifications": map[string]any{"resourceSubscriptions": uris}}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, "at most 256") {
		t.Errorf("a listen filter of 257 resources: HTTP %d %+v; want 400, -32602 naming the limit", resp.Status, resp.Error)
	}
}
