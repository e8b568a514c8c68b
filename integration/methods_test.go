package integration

import (
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// notesAPI is a handler struct whose methods become tools and a prompt.
type notesAPI struct{ prefix string }

func (n *notesAPI) ListNotes(_ *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply(n.prefix + "all notes")
}

func (n *notesAPI) GetHTTPStatus(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply(n.prefix + "status " + p.String("code"))
}

func (n *notesAPI) SummaryPrompt(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply("Summarize " + p.String("topic"))
}

// Explicitly declared below: that declaration wins.
func (n *notesAPI) DeleteNote(_ *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply("from the method")
}

// Not a handler's signature: skipped.
func (n *notesAPI) Close() error { return nil }

func (n *notesAPI) Describe() map[string]string {
	return map[string]string{
		"list_notes":    "List every note",
		"GetHTTPStatus": "Explain an HTTP status code",
		"summary":       "Summarize a topic",
		"delete_note":   "Delete a note (method)",
	}
}

func TestMethodsDeclareAHandlerStruct(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Methods(&notesAPI{prefix: "> "},
		specter.MethodOptions(map[string][]specter.Option{
			"get_http_status": {params.String("code", params.Required(), params.Pattern(`^[1-5]\d\d$`)), specter.ReadOnly()},
			"summary":         {params.String("topic", params.Required())},
		}),
		specter.MethodDescriptions(map[string]string{"list_notes": "List all notes"}))
	r.Tool("delete_note", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("explicit")
	}, specter.Description("Delete a note"))

	for _, ec := range bothEras(t, r) {
		t.Run(ec.name, func(t *testing.T) {
			tools, err := ec.c.ListTools(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			desc := map[string]string{}
			for _, tool := range tools {
				desc[tool.Name] = tool.Description
			}
			want := map[string]string{"list_notes": "List all notes", "get_http_status": "Explain an HTTP status code", "delete_note": "Delete a note"}
			if len(desc) != len(want) {
				t.Errorf("tools %v, want %v", desc, want)
			}
			for name, d := range want {
				if desc[name] != d {
					t.Errorf("%s: description %q, want %q", name, desc[name], d)
				}
			}
			i := slices.IndexFunc(tools, func(tool mcp.Tool) bool { return tool.Name == "get_http_status" })
			if i < 0 || !strings.Contains(string(tools[i].InputSchema), `"required":["code"]`) || tools[i].Annotations == nil {
				t.Errorf("get_http_status lacks its options: %+v", tools)
			}
			for name, args := range map[string]map[string]any{"list_notes": nil, "get_http_status": {"code": "404"}, "delete_note": nil} {
				res, _, err := ec.c.CallTool(ctx(t), name, args)
				if err != nil || res.IsError {
					t.Fatalf("%s: %+v %v", name, res, err)
				}
				if got, want := text(t, res), map[string]string{"list_notes": "> all notes", "get_http_status": "> status 404", "delete_note": "explicit"}[name]; got != want {
					t.Errorf("%s answered %q, want %q", name, got, want)
				}
			}
			res, _, err := ec.c.CallTool(ctx(t), "get_http_status", map[string]any{"code": "42"})
			if err != nil || !res.IsError {
				t.Errorf("params from MethodOptions are enforced: %+v %v", res, err)
			}
			prompts, err := ec.c.ListPrompts(ctx(t))
			if err != nil || len(prompts) != 1 || prompts[0].Name != "summary" || prompts[0].Description != "Summarize a topic" {
				t.Fatalf("prompts %+v %v", prompts, err)
			}
			pr, _, err := ec.c.GetPrompt(ctx(t), "summary", map[string]string{"topic": "Go"})
			if err != nil || len(pr.Messages) != 1 {
				t.Fatalf("summary: %+v %v", pr, err)
			}
		})
	}
}
