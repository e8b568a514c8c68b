package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
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
func resourceServer(t *testing.T, r *specter.Router) (*mcptest.Client, *mcptest.ModernClient) {
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
	modern := mcptest.NewModernClient(srv.URL)
	modern.HTTP = srv.Client()
	return legacy, modern
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
	legacy, modern := resourceServer(t, r)
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
			return modern.Call(ctx(t), mcp.MethodResourcesRead, p)
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
	legacy, modern := resourceServer(t, r)
	onlyPublic := mcptest.NewModernClient(modern.URL)
	onlyPublic.HTTP, onlyPublic.Header = modern.HTTP, http.Header{"X-Only-Public": {"1"}}

	type caller struct {
		name string
		call func(method, uri string) (*mcptest.Response, error)
	}
	callers := []caller{
		{"session", func(method, uri string) (*mcptest.Response, error) {
			return legacy.Call(ctx(t), method, map[string]any{"uri": uri})
		}},
		{"2026-07-28", func(method, uri string) (*mcptest.Response, error) {
			return modern.Call(ctx(t), method, map[string]any{"uri": uri})
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
