package integration

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcptest"
)

// post sends a raw body with the client's session headers, letting the
// test override headers.
func post(t *testing.T, c *mcptest.Client, body string, set map[string]string) (*mcptest.Response, error) {
	t.Helper()
	req, err := c.NewRequest(ctx(t), http.MethodPost, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	hr, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Body.Close()
	return c.ReadAnswer(hr, nil)
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, fixture.New(quiet, specter.MaxBodyBytes(64<<10)))
	c := e.session(nil, "2025-11-25")
	other := e.session(e.newClient(nil), "2025-11-25")

	cases := []struct {
		name   string
		body   string
		header map[string]string
		status int
		code   int // 0: no JSON-RPC error expected in the body
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, nil, 400, jsonrpc.CodeParseError},
		{"not JSON at all", `hello`, nil, 400, jsonrpc.CodeParseError},
		{"JSON but not JSON-RPC", `{"hello":"world"}`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"id is an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"params is an array", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"a JSON array of numbers", `[1,2]`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"empty batch", `[]`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"nested too deep", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), nil, 400, jsonrpc.CodeParseError},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, nil, 200, jsonrpc.CodeMethodNotFound},
		{"tools/call with a numeric name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"tools/call without a name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"prompt with a missing argument", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"prompt arguments of the wrong type", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":1}}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"bad log level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"bad cursor", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"!!"}}`, nil, 200, jsonrpc.CodeInvalidParams},
		{"batch after 2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, jsonrpc.CodeInvalidRequest},
		{"no Accept", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Accept": ""}, 406, jsonrpc.CodeInvalidRequest},
		{"Accept without event-stream", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Accept": "application/json"}, 406, jsonrpc.CodeInvalidRequest},
		{"wrong Content-Type", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Content-Type": "text/plain"}, 415, jsonrpc.CodeInvalidRequest},
		{"body over the limit", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 70<<10) + `"}}`, nil, 413, jsonrpc.CodeInvalidRequest},
		{"unsupported protocol version header", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, 400, jsonrpc.CodeInvalidRequest},
		{"unknown session", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Mcp-Session-Id": "forged"}, 404, jsonrpc.CodeInvalidRequest},
		{"response to no server request", `{"jsonrpc":"2.0","id":999,"result":{}}`, nil, 202, 0},
		{"error response to no server request", `{"jsonrpc":"2.0","id":999,"error":{"code":1,"message":"x"}}`, nil, 202, 0},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, 202, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := post(t, c, tc.body, tc.header)
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d (body %s)", resp.Status, tc.status, resp.Body)
			}
			if tc.code == 0 {
				if len(bytes.TrimSpace(resp.Body)) != 0 {
					t.Errorf("unexpected body %s", resp.Body)
				}
				return
			}
			if resp.Error == nil || resp.Error.Code != tc.code {
				t.Fatalf("error %+v, want code %d (body %s)", resp.Error, tc.code, resp.Body)
			}
			if resp.Error.Message == "" {
				t.Error("empty error message")
			}
		})
	}
	// None of it disturbed the session or its neighbour.
	for _, cl := range []*mcptest.Client{c, other} {
		if _, err := cl.ListTools(ctx(t)); err != nil {
			t.Fatalf("session unusable after bad input: %v", err)
		}
	}
}

func TestInvalidToolArgumentsAreToolErrorsNamingEveryField(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("book", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("ok")
	}, append(paramsFields(), specter.Description("Book a room"))...)
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	res, _, err := c.CallTool(ctx(t), "book", map[string]any{"nights": "3", "email": "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("invalid arguments gave a successful result: %+v", res)
	}
	msg := text(t, res)
	for _, want := range []string{"room", "nights", "email"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error text %q does not name %q", msg, want)
		}
	}
	// A missing arguments field means {}: here that fails on the required fields only.
	res, _, err = c.CallTool(ctx(t), "book", nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "room") {
		t.Fatalf("no arguments: %+v %v", res, err)
	}
	// Valid arguments pass.
	res, _, err = c.CallTool(ctx(t), "book", map[string]any{"room": "A1", "nights": 2, "email": "a@b.co"})
	if err != nil || res.IsError {
		t.Fatalf("valid arguments: %+v %v", res, err)
	}
}

func TestConcurrentBadInputDoesNotDisturbSessions(t *testing.T) {
	e := newEnv(t, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e.session(e.newClient(nil), "2025-11-25")
			for range 10 {
				post(t, c, `{"jsonrpc":"2.0","id":1,`, nil)
				res, _, err := c.CallTool(ctx(t), "test_simple_text", nil)
				if err != nil || res.IsError {
					t.Errorf("client %d: %+v %v", i, res, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
