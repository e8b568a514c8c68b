package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/appview"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// dashboardURI is the UI resource of the studies dashboard (MCP Apps).
const dashboardURI = "ui://studies/dashboard"

// views holds the dashboard's HTML, built into the binary.
//
//go:embed views/dashboard.html
var views embed.FS

// dashboard is the dashboard page, rendered for each caller: it greets
// the user and carries appview's script, which talks to the host.
var dashboard = template.Must(template.ParseFS(views, "views/dashboard.html"))

// appOnlyTools are the tools only the dashboard calls: hosts keep them
// from the model, and connect hides them from clients without UI.
var appOnlyTools = []string{"update_study"}

// StudyList is what list_studies answers: the studies that match a
// filter, and the filter.
type StudyList struct {
	Studies []Study `json:"studies"`
	Total   int     `json:"total"`
	Status  string  `json:"status,omitempty"`
	Query   string  `json:"query,omitempty"`
}

// UpdateStudy is the input of update_study.
type UpdateStudy struct {
	ID     string `json:"id" validate:"required" description:"The study id, such as 042"`
	Status string `json:"status" validate:"required,oneof=draft recruiting active completed" description:"The new status: draft, recruiting, active or completed"`
}

// declareApps declares the studies dashboard: its UI resource, the tool
// that shows it (list_studies, for the model and the app) and the tool
// the dashboard alone calls (update_study). Hosts without MCP Apps read
// list_studies' text.
func declareApps(r *specter.Router, repo *studyRepo) {
	r.UI(dashboardURI, specter.HTMLTemplate(dashboard, func(c *specter.Context) (any, error) {
		u, _ := specter.Assigned[user](c, "user")
		return map[string]any{"User": u.Name, "Statuses": statuses, "Script": appview.ScriptTag()}, nil
	}),
		specter.Name("studies-dashboard"), specter.Title("Studies dashboard"),
		specter.Description("Lists and filters the studies, shows one and changes its status"),
		specter.PrefersBorder(true),
	)

	r.Tool("list_studies", func(p specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
		list := StudyList{Status: p.String("status"), Query: strings.TrimSpace(p.String("query"))}
		list.Studies, list.Total = repo.Filter(list.Status, list.Query)
		return replyWithText(req, list, listText(list))
	},
		specter.Description("List the studies, optionally by status or by words of their title; hosts with MCP Apps show them in an interactive dashboard"),
		specter.ReadOnly(),
		specter.UIResource(dashboardURI),
		params.Enum("status", statuses, params.Description("Only studies with this status")),
		params.String("query", params.Validate("max=100"), params.Description("Only studies whose title holds these words")),
	)

	specter.Tool(r, "update_study", func(in UpdateStudy, req *specter.Request, _ *specter.Context) specter.Result {
		s, ok := repo.SetStatus(in.ID, in.Status)
		if !ok {
			return specter.Error(specter.NewToolError(fmt.Sprintf("no study has the id %q", in.ID)))
		}
		return replyWithText(req, s, fmt.Sprintf("Study %s (%s) is now %s.", s.ID, s.Title, s.Status))
	},
		specter.Description("Change the status of a study (from the studies dashboard)"),
		specter.Idempotent(), specter.Destructive(false),
		specter.UIResource(dashboardURI),
		specter.Visibility(mcp.VisibilityApp),
	)
}

// listText is list_studies' answer for the model and for hosts without UI.
func listText(l StudyList) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d studies", len(l.Studies), l.Total)
	if l.Status != "" {
		fmt.Fprintf(&b, " with status %s", l.Status)
	}
	if l.Query != "" {
		fmt.Fprintf(&b, " matching %q", l.Query)
	}
	b.WriteString(":\n")
	for _, s := range l.Studies {
		fmt.Fprintf(&b, "- %s %s (%s)\n", s.ID, s.Title, s.Status)
	}
	return b.String()
}

// replyWithText answers a tool call with text for the model and v as
// structuredContent for the dashboard (from revision 2025-06-18 on).
func replyWithText(req *specter.Request, v any, text string) specter.Result {
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(text)}}
	if mcp.HasStructuredContent(req.Version) {
		b, err := json.Marshal(v)
		if err != nil {
			return specter.Error(err)
		}
		res.StructuredContent = b
	}
	return specter.Reply(res)
}

// visibleTools are the tools of a plan the caller's client can use: the
// dashboard's own tools only for clients that render MCP Apps.
func visibleTools(p plan, supportsUI bool) []string {
	tools := p.tools()
	if !supportsUI {
		tools = slices.DeleteFunc(tools, func(t string) bool { return slices.Contains(appOnlyTools, t) })
	}
	return tools
}
