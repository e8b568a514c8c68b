package integration

import (
	"net/http"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// strictRouter has a harmless tool and one that must not be reachable by
// a second, case-variant name in the same params.
func strictRouter() *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	for _, name := range []string{"foo", "long_task"} {
		r.Tool(name, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("ran " + name)
		}, specter.Description("A tool"))
	}
	return r
}

// TestParamsThatParsersReadDifferentlyAreRefused: encoding/json takes the
// last of two keys, or a case-insensitive match, where a gateway may take
// the first or the exact one; such params never reach a handler.
func TestParamsThatParsersReadDifferentlyAreRefused(t *testing.T) {
	cases := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"a case variant of name", map[string]any{"name": "foo", "Name": "long_task"}, `"Name" is not "name"`},
		{"a case variant of arguments", map[string]any{"name": "foo", "ARGUMENTS": map[string]any{}}, `"ARGUMENTS" is not "arguments"`},
		{"a case variant inside _meta", map[string]any{"name": "foo", "_meta": map[string]any{"progressToken": 1, "ProgressToken": 2}}, `"ProgressToken" is not "progressToken"`},
	}
	e := newEnv(t, strictRouter())
	sess := e.session(nil, "2025-11-25")
	stateless := e.stateless()
	for _, tc := range cases {
		t.Run("session: "+tc.name, func(t *testing.T) {
			resp, _ := sess.Call(ctx(t), "tools/call", tc.params)
			if resp == nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, tc.want) {
				t.Fatalf("got %+v", resp)
			}
		})
		t.Run("2026-07-28: "+tc.name, func(t *testing.T) {
			resp := send(t, stateless, stateless.Request("tools/call", tc.params))
			je := wantError(t, resp, resp.ID, http.StatusBadRequest, jsonrpc.CodeInvalidParams)
			if !strings.Contains(je.Message, tc.want) {
				t.Fatalf("message %q does not name %s", je.Message, tc.want)
			}
		})
	}
}

func TestEnvelopesThatParsersReadDifferentlyAreRefused(t *testing.T) {
	e := newEnv(t, strictRouter())
	c := e.session(nil, "2025-11-25")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
	} {
		resp, err := c.PostRaw(ctx(t), []byte(body), nil)
		if err != nil && resp == nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("%s: %d %+v", body, resp.Status, resp.Error)
		}
	}
}

// TestMirroredHeaderCannotBeOutvotedByACaseVariant: intermediaries route on
// Mcp-Param-Region, so the region the handler sees must be the one the
// header claims, even when the body adds a key that struct binding would
// once have matched case-insensitively.
func TestMirroredHeaderCannotBeOutvotedByACaseVariant(t *testing.T) {
	type Deploy struct {
		Region string `json:"region" header:"Region" description:"Where to deploy"`
	}
	ran := make(chan string, 1)
	r := specter.NewRouter("t", "1", quiet)
	specter.Tool(r, "deploy", func(d Deploy, _ *specter.Request, _ *specter.Context) specter.Result {
		ran <- d.Region
		return specter.Reply("deployed to " + d.Region)
	}, specter.Description("Deploys"))
	e := newEnv(t, r)
	c := e.stateless()
	req := c.Request("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"region": "us-west", "REGION": "us-east"}})
	req.Header.Set("Mcp-Param-Region", "us-west")
	var res mcptest.ToolResult
	complete(t, send(t, c, req), &res)
	select {
	case got := <-ran:
		t.Fatalf("the handler ran with region %q", got)
	default:
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"REGION"`) {
		t.Fatalf("the model reads %+v", res)
	}
}
