package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// Deploy is the form of the elicitation tests.
type Deploy struct {
	Deploy bool   `json:"deploy" description:"Deploy now?"`
	Reason string `json:"reason,omitempty" validate:"max=20"`
}

// elicitRouter has one tool that asks with a struct and one that asks
// with a compiled schema.
func elicitRouter() *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("typed", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		d, action, err := specter.Elicit[Deploy](c, "Deploy?")
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(fmt.Sprintf("%s deploy=%t reason=%q", action, d.Deploy, d.Reason))
	}, specter.Description("Asks with a struct"))
	schema := params.Must(params.New(params.Boolean("deploy", params.Required())))
	r.Tool("compiled", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		v, action, err := c.Elicit("Deploy?", schema)
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(fmt.Sprintf("%s deploy=%v", action, v["deploy"]))
	}, specter.Description("Asks with a compiled schema"))
	return r
}

func TestElicitSendsTheSchemaAndValidatesTheAnswer(t *testing.T) {
	cases := []struct {
		tool, answer string
		isError      bool
		want         string
	}{
		{"typed", `{"action":"accept","content":{"deploy":true,"reason":"ready"}}`, false, `accept deploy=true reason="ready"`},
		{"typed", `{"action":"accept","content":{"deploy":"yes"}}`, true, "deploy"},
		{"typed", `{"action":"accept","content":{"deploy":true,"reason":"far too long a reason to give"}}`, true, "reason"},
		{"typed", `{"action":"decline"}`, false, `decline deploy=false reason=""`},
		{"compiled", `{"action":"accept","content":{"deploy":false}}`, false, "accept deploy=false"},
		{"compiled", `{"action":"accept","content":{"deploy":"yes"}}`, true, "deploy"},
		{"compiled", `{"action":"accept","content":{}}`, true, "deploy"},
	}
	e := newEnv(t, elicitRouter())
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.answer, func(t *testing.T) {
			c := e.newClient(nil)
			var mu sync.Mutex
			var asked json.RawMessage
			c.OnRequest = func(method string, p json.RawMessage) (any, *jsonrpc.Error) {
				var ep mcp.ElicitParams
				_ = json.Unmarshal(p, &ep)
				mu.Lock()
				asked = ep.RequestedSchema
				mu.Unlock()
				return json.RawMessage(tc.answer), nil
			}
			e.session(c, "2025-11-25")
			res, _, err := c.CallTool(ctx(t), tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || !strings.Contains(text(t, res), tc.want) {
				t.Fatalf("isError=%t %q; want isError=%t and %q", res.IsError, text(t, res), tc.isError, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			var s struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(asked, &s); err != nil || s.Type != "object" || !bytes.Contains(s.Properties["deploy"], []byte(`"boolean"`)) {
				t.Fatalf("requestedSchema %s; want an object with a boolean deploy", asked)
			}
		})
	}
}

func TestElicitValidatesTheAnswerOnTheStatelessWire(t *testing.T) {
	e := newEnv(t, elicitRouter())
	c := e.stateless()
	for _, tool := range []string{"typed", "compiled"} {
		r1 := inputRequired(t, callTool(t, c, tool, nil, nil))
		in := r1.InputRequests["elicitation-1"]
		if in.Method != "elicitation/create" || !strings.Contains(mustJSON(in.Params), `"boolean"`) {
			t.Fatalf("%s asks %+v", tool, in)
		}
		retry := map[string]any{"requestState": r1.RequestState,
			"inputResponses": map[string]any{"elicitation-1": elicitAccept(map[string]any{"deploy": "yes"})}}
		var res mcptest.ToolResult
		complete(t, callTool(t, c, tool, nil, retry), &res)
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "deploy") {
			t.Fatalf("%s accepted deploy=\"yes\": %+v", tool, res)
		}
	}
}

func TestElicitRefusesSchemasElicitationCannotCarry(t *testing.T) {
	type Nested struct {
		Address struct {
			City string `json:"city"`
		} `json:"address"`
	}
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("nested", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		_, _, err := specter.Elicit[Nested](c, "Where?")
		return specter.Reply(fmt.Sprint(err))
	}, specter.Description("Asks for an object"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	res, _, err := c.CallTool(ctx(t), "nested", nil)
	if err != nil || !strings.Contains(text(t, res), `"address" has type "object"`) {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestNoReplyWithoutWorkIsAnInternalError(t *testing.T) {
	var reported sync.Map
	r := specter.NewRouter("t", "1", quiet, specter.OnError(func(_ context.Context, err error, _ *specter.Request) {
		reported.Store(err.Error(), true)
	}))
	r.Tool("lazy", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(nil)
	}, specter.Description("Promises work and gives none"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	_, resp, _ := c.CallTool(ctx(t), "lazy", nil)
	if resp == nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("%+v", resp)
	}
	if _, ok := reported.Load("specter: NoReply(nil): NoReply needs the work that produces the reply"); !ok {
		t.Fatal("the mistake was not reported to OnError")
	}
}

func TestDiscoverAdvertisesTasksOnlyWithATaskTool(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("plain", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("x")
	}, specter.Description("No tasks"))
	e := newEnv(t, r)
	c := e.stateless()
	discover := func() mcp.DiscoverResult {
		var d mcp.DiscoverResult
		complete(t, call(t, c, "server/discover", nil), &d)
		return d
	}
	if _, ok := discover().Capabilities.Extensions[mcp.ExtensionTasks]; ok {
		t.Fatal("a server without task tools advertises the tasks extension")
	}
	r.Tool("job", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply("done") })
	}, specter.Description("A job"), specter.Tasks(specter.TaskOptional))
	if _, ok := discover().Capabilities.Extensions[mcp.ExtensionTasks]; !ok {
		t.Fatal("a server with a task tool does not advertise the tasks extension")
	}
}

func TestConnectDenyListsAndUndeclaredNames(t *testing.T) {
	var logs lockedBuffer
	r := specter.NewRouter("t", "1", specter.Logger(zerolog.New(&logs)))
	for _, name := range []string{"list_projects", "delete_project", "admin_reset"} {
		r.Tool(name, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply(name)
		}, specter.Description("A tool"))
	}
	r.Connect(func(c *specter.Context) error {
		c.HideTools("admin_reset")
		if c.HTTPRequest().Header.Get("X-Plan") == "basic" {
			c.AllowTools("list_projects", "delet_project") // a typo hides delete_project
		}
		return nil
	})
	e := newEnv(t, r)
	names := func(plan string) []string {
		c := e.newClient(nil)
		c.Header = map[string][]string{"X-Plan": {plan}}
		e.session(c, "2025-11-25")
		tools, err := c.ListTools(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range tools {
			out = append(out, tool.Name)
		}
		_, resp, _ := c.CallTool(ctx(t), "admin_reset", nil)
		if resp == nil || resp.Error == nil || resp.Error.Message != "Unknown tool: admin_reset" {
			t.Fatalf("calling a hidden tool: %+v", resp)
		}
		return out
	}
	if got := names("pro"); fmt.Sprint(got) != "[list_projects delete_project]" {
		t.Fatalf("pro sees %v", got)
	}
	for range 3 {
		if got := names("basic"); fmt.Sprint(got) != "[list_projects]" {
			t.Fatalf("basic sees %v", got)
		}
	}
	if n := strings.Count(logs.String(), `"name":"delet_project"`); n != 1 {
		t.Fatalf("the undeclared name was logged %d times; want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), `"name":"admin_reset"`) || strings.Contains(logs.String(), `"name":"list_projects"`) {
		t.Fatalf("a declared name was reported:\n%s", logs.String())
	}
}

func TestAnUnansweredQuestionTimesOut(t *testing.T) {
	errs := make(chan error, 1)
	r := specter.NewRouter("t", "1", quiet, specter.InputTimeout(300*time.Millisecond))
	r.Tool("ask", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		_, _, err := specter.Elicit[Deploy](c, "Deploy?")
		errs <- err
		return specter.Error(err)
	}, specter.Description("Asks and waits"))
	e := newEnv(t, r)
	c := e.newClient(nil)
	gone := make(chan struct{})
	c.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) {
		<-gone // a client that answers only after the test
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "too late")
	}
	e.session(c, "2025-11-25")
	res, resp, err := c.CallTool(ctx(t), "ask", nil)
	close(gone)
	if err != nil {
		t.Fatal(err)
	}
	if got := <-errs; !errors.Is(got, specter.ErrInputTimeout) {
		t.Fatalf("the handler got %v, want ErrInputTimeout", got)
	}
	if !res.IsError || !strings.Contains(text(t, res), "no answer within 300ms") {
		t.Fatalf("the model reads %+v", res)
	}
	cancelled := false
	for _, n := range resp.Notifications {
		cancelled = cancelled || n.Method == "notifications/cancelled"
	}
	if !cancelled {
		t.Fatalf("the client was not told to stop answering: %+v", resp.Notifications)
	}
}
