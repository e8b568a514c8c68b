package integration

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
)

// toolsetRouter has tools in three toolsets, one needing a scope, a
// tagged prompt and resources, and the search tool; connect allows the
// toolset the X-Toolset header names and hides the X-Hide one.
func toolsetRouter() *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	ok := func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("ok") }
	r.Tool("list_issues", ok, specter.Description("List the issues of a GitHub repository"), specter.Tags("github", "issues"))
	r.Tool("merge_pull_request", ok, specter.Description("Merge a GitHub pull request"), specter.Tags("github"))
	r.Tool("create_ticket", ok, specter.Description("Open a Jira ticket for an issue"), specter.Tags("jira", "issues"))
	r.Tool("purge_repository", ok, specter.Description("Delete a GitHub repository"), specter.Tags("github", "admin"), specter.Scopes("admin"))
	r.Prompt("triage", ok, specter.Description("Triage issues"), specter.Tags("github"))
	r.Prompt("standup", ok, specter.Description("Write a standup"))
	r.Resource("app://repos/{name}", ok, specter.Description("A repository"), specter.Tags("github"),
		specter.List(func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply([]mcp.Resource{{URI: "app://repos/specter", Name: "specter"}})
		}))
	r.Resource("app://board", ok, specter.Description("The Jira board"), specter.Tags("jira"))
	r.ToolSearch("search_tools", specter.Tags("meta"))
	r.Connect(func(c *specter.Context) error {
		if ts := c.HTTPRequest().Header.Get("X-Toolset"); ts != "" {
			c.AllowTags(ts, "meta")
		}
		if h := c.HTTPRequest().Header.Get("X-Hide"); h != "" {
			c.HideTags(h)
		}
		if c.HTTPRequest().Header.Get("X-Admin") != "" {
			c.SetCaller(&principal.Principal{ID: "root", Scopes: []string{"admin"}})
		}
		return nil
	})
	return r
}

func sortedNames[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	slices.Sort(out)
	return out
}

func TestTagsAllowHideAndListFilter(t *testing.T) {
	toolName := func(t mcp.Tool) string { return t.Name }
	for _, tc := range []struct {
		header                http.Header
		tools, prompts, tmpls []string
		resources             []string
	}{
		{http.Header{}, []string{"create_ticket", "list_issues", "merge_pull_request", "search_tools"}, []string{"standup", "triage"}, []string{"app://repos/{name}"}, []string{"app://board", "app://repos/specter"}},
		{http.Header{"X-Toolset": {"github"}}, []string{"list_issues", "merge_pull_request", "search_tools"}, []string{"triage"}, []string{"app://repos/{name}"}, []string{"app://repos/specter"}},
		{http.Header{"X-Toolset": {"github"}, "X-Admin": {"1"}}, []string{"list_issues", "merge_pull_request", "purge_repository", "search_tools"}, []string{"triage"}, []string{"app://repos/{name}"}, []string{"app://repos/specter"}},
		{http.Header{"X-Hide": {"github"}}, []string{"create_ticket", "search_tools"}, []string{"standup"}, []string{}, []string{"app://board"}},
	} {
		for _, ec := range bothEras(t, toolsetRouter(), tc.header) {
			t.Run(ec.name+" "+mustJSON(tc.header), func(t *testing.T) {
				tools, err := ec.c.ListTools(ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if got := sortedNames(tools, toolName); !slices.Equal(got, tc.tools) {
					t.Errorf("tools %v, want %v", got, tc.tools)
				}
				prompts, _ := ec.c.ListPrompts(ctx(t))
				if got := sortedNames(prompts, func(p mcp.Prompt) string { return p.Name }); !slices.Equal(got, tc.prompts) {
					t.Errorf("prompts %v, want %v", got, tc.prompts)
				}
				tmpls, _ := ec.c.ListResourceTemplates(ctx(t))
				if got := sortedNames(tmpls, func(p mcp.ResourceTemplate) string { return p.URITemplate }); !slices.Equal(got, tc.tmpls) {
					t.Errorf("templates %v, want %v", got, tc.tmpls)
				}
				res, _ := ec.c.ListResources(ctx(t))
				if got := sortedNames(res, func(p mcp.Resource) string { return p.URI }); !slices.Equal(got, tc.resources) {
					t.Errorf("resources %v, want %v", got, tc.resources)
				}
				if !slices.Contains(tc.tools, "merge_pull_request") {
					// A tool hidden by tag is unknown to the caller.
					r, _, err := ec.c.CallTool(ctx(t), "merge_pull_request", nil)
					if err == nil || !strings.Contains(err.Error(), "Unknown tool") {
						t.Errorf("calling a hidden tool: %+v %v", r, err)
					}
				}
			})
		}
	}

	for _, ec := range bothEras(t, toolsetRouter()) {
		t.Run(ec.name+" list filter", func(t *testing.T) {
			resp, err := ec.call(ctx(t), "tools/list", map[string]any{"_meta": map[string]any{specter.MetaTags: []string{"issues"}}})
			if err != nil {
				t.Fatal(err)
			}
			var list mcp.ListToolsResult
			if err := resp.Decode(&list); err != nil {
				t.Fatal(err)
			}
			if got := sortedNames(list.Tools, toolName); !slices.Equal(got, []string{"create_ticket", "list_issues"}) {
				t.Errorf("tools tagged issues: %v", got)
			}
			for _, tool := range list.Tools {
				if tool.Name == "list_issues" && mustJSON(tool.Meta[specter.MetaTags]) != `["github","issues"]` {
					t.Errorf("list_issues _meta %v", tool.Meta)
				}
			}
			resp, err = ec.call(ctx(t), "resources/list", map[string]any{"_meta": map[string]any{specter.MetaTags: []string{"jira"}}})
			var resources mcp.ListResourcesResult
			if err != nil || resp.Decode(&resources) != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "app://board" {
				t.Errorf("resources tagged jira (the listed repos are github's): %+v %v", resources, err)
			}
			resp, err = ec.call(ctx(t), "prompts/list", map[string]any{"_meta": map[string]any{specter.MetaTags: []string{"github"}}})
			var prompts mcp.ListPromptsResult
			if err != nil || resp.Decode(&prompts) != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "triage" {
				t.Errorf("prompts tagged github: %+v %v", prompts, err)
			}
		})
	}
}

func TestToolSearchFindsOnlyWhatTheCallerMayUse(t *testing.T) {
	search := func(t *testing.T, ec eraClient, args map[string]any) []string {
		t.Helper()
		res, _, err := ec.c.CallTool(ctx(t), "search_tools", args)
		if err != nil || res.IsError {
			t.Fatalf("search %v: %+v %v", args, res, err)
		}
		var found struct{ Tools []mcp.Tool }
		if err := json.Unmarshal(res.StructuredContent, &found); err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(found.Tools))
		for i, tool := range found.Tools {
			out[i] = tool.Name
			if len(tool.InputSchema) == 0 {
				t.Errorf("%s found without its input schema", tool.Name)
			}
		}
		return out
	}
	for _, tc := range []struct {
		header http.Header
		args   map[string]any
		want   []string
	}{
		{http.Header{}, map[string]any{"query": "github"}, []string{"list_issues", "merge_pull_request"}},
		{http.Header{}, map[string]any{"query": "issues"}, []string{"list_issues", "create_ticket"}},
		{http.Header{}, map[string]any{"query": "issues jira"}, []string{"create_ticket"}},
		{http.Header{}, map[string]any{"query": "repository"}, []string{"list_issues"}},
		{http.Header{"X-Admin": {"1"}}, map[string]any{"query": "repository"}, []string{"purge_repository", "list_issues"}},
		{http.Header{}, map[string]any{"tags": []string{"jira"}}, []string{"create_ticket"}},
		{http.Header{}, map[string]any{"query": "issues", "limit": 1}, []string{"list_issues"}},
		{http.Header{"X-Toolset": {"jira"}}, map[string]any{"query": "github"}, []string{}},
		{http.Header{"X-Hide": {"jira"}}, map[string]any{"query": "issues"}, []string{"list_issues"}},
	} {
		for _, ec := range bothEras(t, toolsetRouter(), tc.header) {
			if got := search(t, ec, tc.args); !slices.Equal(got, tc.want) {
				t.Errorf("%s %v %v: found %v, want %v", ec.name, tc.header, tc.args, got, tc.want)
			}
		}
	}
}
