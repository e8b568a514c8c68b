package inspector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/inspector"
	"github.com/specter-mcp/specter/params"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mounted serves an inspector of an in-process router under /debug/mcp/,
// as an application mounts it.
func mounted(t *testing.T) (*httptest.Server, *inspector.Inspector) {
	r := specter.NewRouter("mounted", "1.0.0")
	r.Tool("hello", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("hello " + p.String("who"))
	}, specter.Description("Say hello"), params.String("who"))
	in := inspector.New(inspector.Config{
		Target: "in process",
		Connect: func(ctx context.Context, opts client.Options) (*client.Client, error) {
			return client.Connect(ctx, client.InMemory(r), &opts)
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/debug/mcp/", http.StripPrefix("/debug/mcp", in))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		in.Close()
		srv.Close()
		_ = r.Shutdown(context.Background())
	})
	return srv, in
}

func post(t *testing.T, srv *httptest.Server, path, body string, h map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/debug/mcp/api/"+path, strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// TestMounted serves the page and its assets under a prefix, and
// answers the API of the page: connect, call, and the refusals of
// requests that do not come from the page.
func TestMounted(t *testing.T) {
	srv, _ := mounted(t)
	for path, want := range map[string]string{"/debug/mcp/": "<title>Specter inspector</title>", "/debug/mcp/assets/app.js": "window.inspector"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d, no %q", path, res.StatusCode, want)
		}
	}

	page := map[string]string{inspector.Header: "1"}
	code, out := post(t, srv, "connect", `{"era":"session"}`, page)
	if code != 200 || out["protocolVersion"] != "2025-11-25" || out["target"] != "in process" || len(out["tools"].([]any)) != 1 {
		t.Fatalf("connect: %d %v", code, out)
	}
	code, out = post(t, srv, "call", `{"id":"c1","name":"hello","arguments":{"who":"you"}}`, page)
	if code != 200 || !strings.Contains(mustJSON(out), `hello you`) {
		t.Errorf("call: %d %v", code, out)
	}
	code, out = post(t, srv, "call", `{"name":"nope"}`, page)
	if code != 200 || out["error"] == nil {
		t.Errorf("call of an unknown tool: %d %v", code, out)
	}

	for _, c := range []struct {
		name, path, body string
		h                map[string]string
		code             int
	}{
		{"no header", "connect", `{}`, nil, 403},
		{"another origin", "connect", `{}`, map[string]string{inspector.Header: "1", "Origin": "http://evil.example"}, 403},
		{"bad era", "connect", `{"era":"future"}`, page, 400},
		{"bad JSON", "call", `{`, page, 400},
		{"no such elicitation", "elicit", `{"id":"9","action":"accept"}`, page, 404},
		{"bad action", "elicit", `{"id":"9","action":"maybe"}`, page, 400},
	} {
		if code, out := post(t, srv, c.path, c.body, c.h); code != c.code || out["error"] == nil {
			t.Errorf("%s: %d %v, want %d and an error", c.name, code, out, c.code)
		}
	}
}

// TestEventsEndAtClose checks that Close ends the page's event streams.
func TestEventsEndAtClose(t *testing.T) {
	srv, in := mounted(t)
	res, err := http.Get(srv.URL + "/debug/mcp/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != ": connected\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	in.Close()
	if _, err := io.ReadAll(res.Body); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
