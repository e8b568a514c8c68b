package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/principal"
)

// In a 2025-03-26 batch, an element refused for want of scopes gets its
// own error and the others their results: the HTTP answer stays 200. A
// single request keeps its 403 and challenge.
func TestForbiddenElementOfABatch(t *testing.T) {
	r := specter.NewRouter("batch", "1.0.0", quiet, specter.ResourceMetadata("https://mcp.example.com/.well-known/oauth-protected-resource"))
	r.Connect(func(c *specter.Context) error {
		c.SetCaller(&principal.Principal{ID: "alice", Scopes: []string{"studies:read"}})
		return nil
	})
	r.Tool("open", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("opened")
	},
		specter.Description("Open something"))
	r.Tool("write", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("written")
	},
		specter.Description("Write something"), specter.Scopes("studies:write"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-03-26")
	call := func(id int, tool string) string {
		return `{"jsonrpc":"2.0","id":` + mustJSON(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	}
	post := func(body string) (*http.Response, []byte) {
		req, err := c.NewRequest(ctx(t), http.MethodPost, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	const challenge = `error="insufficient_scope"`

	res, body := post("[" + call(1, "open") + "," + call(2, "write") + "," + call(3, "open") + "]")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("batch: HTTP %d %s, want 200", res.StatusCode, body)
	}
	var answers []jsonrpc.Message
	if err := json.Unmarshal(body, &answers); err != nil || len(answers) != 3 {
		t.Fatalf("batch answer %s: %v", body, err)
	}
	for _, a := range answers {
		forbidden := string(a.ID) == "2"
		switch {
		case forbidden && (a.Error == nil || a.Error.Code != specter.CodeForbidden || !strings.Contains(a.Error.Message, "studies:write")):
			t.Errorf("element 2: %+v, want the forbidden error naming studies:write", a)
		case !forbidden && (a.Error != nil || !strings.Contains(string(a.Result), "opened")):
			t.Errorf("element %s: %s %+v, want its result", a.ID, a.Result, a.Error)
		}
	}
	if got := res.Header.Values("WWW-Authenticate"); len(got) > 1 || len(got) == 1 && !strings.Contains(got[0], challenge) {
		t.Errorf("batch challenge %q", got)
	}

	res, body = post(call(4, "write"))
	if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Header.Get("WWW-Authenticate"), challenge) {
		t.Fatalf("single request: HTTP %d %q %s, want 403 with the challenge", res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
	}
}
