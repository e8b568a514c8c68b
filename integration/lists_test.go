package integration

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestListsPaginateWithOpaqueCursorsInDeclarationOrder(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet, specter.PageSize(3))
	for i := range 8 {
		r.Tool(fmt.Sprintf("tool_%d", i), func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("x")
		}, specter.Description("A tool"))
	}
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	var names []string
	cursor, pages := "", 0
	for {
		var res mcp.ListToolsResult
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := c.Call(ctx(t), "tools/list", params)
		if err != nil {
			t.Fatal(err)
		}
		if err := resp.Decode(&res); err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		pages++
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if pages != 3 || len(names) != 8 || names[0] != "tool_0" || names[7] != "tool_7" {
		t.Fatalf("%d pages: %v", pages, names)
	}
}

// studies is a resource template with a List handler paginating 25 items.
func studies() *specter.Router {
	r := specter.NewRouter("t", "1", quiet, specter.PageSize(10))
	r.Resource("app://config", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(map[string]any{"debug": false})
	}, specter.Description("Configuration"))
	r.Resource("app://studies/:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("study " + p.String("id"))
	}, specter.Description("A study"),
		specter.Complete("id", specter.Values("10", "11", "12", "2")),
		specter.List(func(_ specter.Params, req *specter.Request, c *specter.Context) specter.Result {
			start := 0
			if req.Cursor() != "" {
				start, _ = strconv.Atoi(req.Cursor())
			}
			var page []mcp.Resource
			for i := start; i < min(start+10, 25); i++ {
				page = append(page, mcp.Resource{URI: fmt.Sprintf("app://studies/%d", i), Name: fmt.Sprintf("Study %d", i)})
			}
			if start+10 < 25 {
				c.PutNextCursor(strconv.Itoa(start + 10))
			}
			return specter.Reply(page)
		}))
	return r
}

func TestResourceListWalksStaticResourcesThenListHandlers(t *testing.T) {
	e := newEnv(t, studies())
	seen := map[string]bool{}
	for _, page := range resourcePages(t, e.session(nil, "2025-11-25")) {
		for _, r := range page {
			if seen[r.URI] {
				t.Fatalf("%s listed twice", r.URI)
			}
			seen[r.URI] = true
		}
	}
	if len(seen) != 26 || !seen["app://config"] || !seen["app://studies/24"] {
		t.Fatalf("listed %d resources", len(seen))
	}
}

// resourcePages walks resources/list from the start, at most 10 pages.
func resourcePages(t *testing.T, c *mcptest.Client) [][]mcp.Resource {
	t.Helper()
	return walkResources(t, func(params map[string]any) (*mcptest.Response, error) {
		return c.Call(ctx(t), "resources/list", params)
	})
}

// walkResources walks resources/list through call from the start, at most
// 10 pages.
func walkResources(t *testing.T, call func(params map[string]any) (*mcptest.Response, error)) [][]mcp.Resource {
	t.Helper()
	var pages [][]mcp.Resource
	cursor := ""
	for range 10 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := call(params)
		if err != nil {
			t.Fatal(err)
		}
		var res mcp.ListResourcesResult
		if err := resp.Decode(&res); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, res.Resources)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return pages
}

// TestResourceListHonoursListHandlersPages: a List handler that pages by
// itself (c.PutNextCursor) has each of its pages listed whole, as a page
// of resources/list that its cursor continues; one that lists everything
// at once is paged by PageSize together with the fixed resources. In both
// eras.
func TestResourceListHonoursListHandlersPages(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet, specter.PageSize(5))
	r.Resource("app://config", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("{}")
	}, specter.Description("The configuration"))
	for _, kind := range []string{"a", "b"} {
		r.Resource("app://"+kind+"/:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply(kind + p.String("id"))
		}, specter.Description("An item"),
			specter.List(func(_ specter.Params, req *specter.Request, c *specter.Context) specter.Result {
				// Three items a page, seven in all.
				start, _ := strconv.Atoi(req.Cursor())
				var page []mcp.Resource
				for i := start; i < min(start+3, 7); i++ {
					page = append(page, mcp.Resource{URI: fmt.Sprintf("app://%s/%d", kind, i), Name: fmt.Sprintf("%s%d", kind, i)})
				}
				if start+3 < 7 {
					c.PutNextCursor(strconv.Itoa(start + 3))
				}
				return specter.Reply(page)
			}))
	}
	// Seven tags, listed at once: the router pages them.
	r.Resource("app://tags/:name", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(p.String("name"))
	}, specter.Description("A tag"),
		specter.List(func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			var all []mcp.Resource
			for i := range 7 {
				all = append(all, mcp.Resource{URI: fmt.Sprintf("app://tags/t%d", i), Name: fmt.Sprintf("t%d", i)})
			}
			return specter.Reply(all)
		}))
	e := newEnv(t, r)
	session, stateless := e.session(nil, "2025-11-25"), e.stateless()
	for era, call := range map[string]func(map[string]any) (*mcptest.Response, error){
		"session":    func(p map[string]any) (*mcptest.Response, error) { return session.Call(ctx(t), "resources/list", p) },
		"2026-07-28": func(p map[string]any) (*mcptest.Response, error) { return stateless.Call(ctx(t), "resources/list", p) },
	} {
		var pages [][]string
		for _, page := range walkResources(t, call) {
			var names []string
			for _, r := range page {
				names = append(names, r.Name)
			}
			pages = append(pages, names)
		}
		want := [][]string{
			{"app://config", "a0", "a1", "a2"}, // the handler's first page fits after the fixed resource
			{"a3", "a4", "a5"},                 // each of its pages ends a page of the list
			{"a6"},
			{"b0", "b1", "b2"},
			{"b3", "b4", "b5"},
			{"b6"},
			{"t0", "t1", "t2", "t3", "t4"}, // the tags fill pages of 5
			{"t5", "t6"},
		}
		if !reflect.DeepEqual(pages, want) {
			t.Errorf("%s: pages %v, want %v", era, pages, want)
		}
	}
}

func TestResourceTemplatesReadCompleteAndReverseRoute(t *testing.T) {
	e := newEnv(t, studies())
	c := e.session(nil, "2025-11-25")
	var tl mcp.ListResourceTemplatesResult
	resp, _ := c.Call(ctx(t), "resources/templates/list", nil)
	if err := resp.Decode(&tl); err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "app://studies/{id}" {
		t.Fatalf("templates %+v %v", tl, err)
	}
	uri, err := e.r.ResourceURI("app://studies/:id", map[string]any{"id": 7})
	if err != nil || uri != "app://studies/7" {
		t.Fatalf("ResourceURI: %q %v", uri, err)
	}
	var rr mcp.ReadResourceResult
	resp, _ = c.Call(ctx(t), "resources/read", map[string]string{"uri": uri})
	if err := resp.Decode(&rr); err != nil || *rr.Contents[0].Text != "study 7" || rr.Contents[0].URI != uri {
		t.Fatalf("read %+v %v", rr, err)
	}
	resp, _ = c.Call(ctx(t), "resources/read", map[string]string{"uri": "app://config"})
	if err := resp.Decode(&rr); err != nil || rr.Contents[0].MIMEType != "application/json" || *rr.Contents[0].Text != `{"debug":false}` {
		t.Fatalf("read JSON %+v %v", rr, err)
	}
	var cr mcp.CompleteResult
	resp, _ = c.Call(ctx(t), "completion/complete", map[string]any{"ref": map[string]string{"type": "ref/resource", "uri": "app://studies/{id}"}, "argument": map[string]string{"name": "id", "value": "1"}})
	if err := resp.Decode(&cr); err != nil || fmt.Sprint(cr.Completion.Values) != "[10 11 12]" {
		t.Fatalf("complete %+v %v", cr, err)
	}
	resp, _ = c.Call(ctx(t), "resources/read", map[string]string{"uri": "app://studies/"})
	if resp.Error == nil || resp.Error.Code != -32002 {
		t.Fatalf("an empty template variable matched: %+v", resp)
	}
}

// TestTemplateVariablesCannotEscape: a decoded template variable cannot
// carry a path out of its segment, nor control characters, and a reserved
// expansion reaches the handler cleaned (issue 9, item 9).
func TestTemplateVariablesCannotEscape(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	echo := func(name string) specter.Handler {
		return func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply(name + "=" + p.String(name))
		}
	}
	r.Resource("files://docs/{name}", echo("name"), specter.Description("a document"))
	r.Resource("tree://{+path}", echo("path"), specter.Description("a file of a tree"))
	c := newEnv(t, r).session(nil, "2025-11-25")
	for _, uri := range []string{
		"files://docs/..%2F..%2Fetc%2Fpasswd", "files://docs/..", "files://docs/a%00b", "files://docs/a%0d%0ab",
		"tree://a%00", "tree://x%0d%0aSet-Cookie:%20a", "tree://..",
	} {
		resp, err := c.Call(ctx(t), "resources/read", map[string]string{"uri": uri})
		if err != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeResourceNotFound {
			t.Errorf("%s: %+v %v, want resource not found", uri, resp, err)
		}
	}
	for uri, want := range map[string]string{
		"files://docs/read%20me.txt":        "name=read me.txt",
		"tree://a/b.txt":                    "path=a/b.txt",
		"tree://../../etc/passwd":           "path=etc/passwd",
		"tree://a/..%2F..%2F..%2Fetc/hosts": "path=etc/hosts",
	} {
		var rr mcp.ReadResourceResult
		resp, _ := c.Call(ctx(t), "resources/read", map[string]string{"uri": uri})
		if err := resp.Decode(&rr); err != nil || *rr.Contents[0].Text != want {
			t.Errorf("%s: %+v %v, want %q", uri, rr, err, want)
		}
	}
}

func TestValueWrapping(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	reply := func(v any) specter.Handler {
		return func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply(v) }
	}
	r.Tool("str", reply("hello"), specter.Description("string"))
	r.Tool("obj", reply(struct {
		A int `json:"a"`
	}{1}), specter.Description("struct"))
	r.Tool("list", reply([]int{1, 2}), specter.Description("slice"))
	r.Tool("content", reply(mcp.Link("app://x", "x")), specter.Description("content"))
	r.Tool("toolerr", reply(specter.NewToolError("try again")), specter.Description("tool error"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	for _, tc := range []struct {
		name, text, structured string
		isError                bool
	}{
		{"str", "hello", "", false},
		{"obj", `{"a":1}`, `{"a":1}`, false},
		{"list", `[1,2]`, "", false},
		{"toolerr", "try again", "", true},
	} {
		res, _, err := c.CallTool(ctx(t), tc.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if text(t, res) != tc.text || string(res.StructuredContent) != tc.structured || res.IsError != tc.isError {
			t.Errorf("%s: %+v structured=%s", tc.name, res, res.StructuredContent)
		}
	}
	res, _, _ := c.CallTool(ctx(t), "content", nil)
	if res.Content[0].ContentType() != "resource_link" || res.Content[0].(*mcp.ResourceLink).URI != "app://x" {
		t.Errorf("content: %+v", res.Content)
	}
	// 2025-03-26 knows no structuredContent.
	old := e.session(e.newClient(nil), "2025-03-26")
	res, _, _ = old.CallTool(ctx(t), "obj", nil)
	if res.StructuredContent != nil {
		t.Errorf("structuredContent sent to a 2025-03-26 client")
	}
}

func TestBatchOn20250326(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-03-26")
	resp, _ := post(t, c, `[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/whatever"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"test_simple_text"}}]`, nil)
	if resp.Status != 200 || string(resp.Body[:1]) != "[" {
		t.Fatalf("batch answer %d %s", resp.Status, resp.Body)
	}
	if want := `[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"This is a simple text response for testing."}]}}]`; string(resp.Body) != want {
		t.Errorf("batch body\n%s\nwant\n%s", resp.Body, want)
	}
}
