package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/appview"
)

// uiCapabilities declare the MCP Apps extension, as a host that renders
// UI resources does.
var uiCapabilities = map[string]any{"extensions": map[string]any{
	"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}},
}}

func TestDashboardToolsDependOnUISupport(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(uiCapabilities)
	var list struct {
		Tools []struct {
			Name string          `json:"name"`
			Meta json.RawMessage `json:"_meta"`
		} `json:"tools"`
	}
	c.result("tools/list", nil, &list)
	meta := map[string]string{}
	for _, tool := range list.Tools {
		meta[tool.Name] = string(tool.Meta)
	}
	if got, want := meta["list_studies"], `{"ui":{"resourceUri":"ui://studies/dashboard"},"ui/resourceUri":"ui://studies/dashboard"}`; got != want {
		t.Errorf("list_studies _meta = %s, want %s", got, want)
	}
	// The app-only tool stays listed, carrying its visibility, for the
	// host to keep from the model.
	if got, want := meta["update_study"], `{"ui":{"resourceUri":"ui://studies/dashboard","visibility":["app"]},"ui/resourceUri":"ui://studies/dashboard"}`; got != want {
		t.Errorf("update_study _meta = %s, want %s", got, want)
	}

	// A client without UI gets the text, and no app-only tool.
	plain := newClient(t, srv, ultraUser)
	plain.initialize(nil)
	if names := toolNames(plain); slices.Contains(names, "update_study") || !slices.Contains(names, "list_studies") {
		t.Errorf("a client without UI sees %v", names)
	}
	res, _ := plain.callTool("list_studies", map[string]any{"status": "active", "query": "SLEEP"}, nil)
	want := "4 of 120 studies with status active matching \"SLEEP\":\n- 015 Sleep and attention (active)\n- 043 Sleep and productivity (active)\n" +
		"- 071 Sleep and memory (active)\n- 099 Sleep and heart rate (active)\n"
	if res.IsError || res.text() != want {
		t.Errorf("list_studies text = %q, want %q", res.text(), want)
	}
	refusedAsUnknown(t, plain, "update_study")
}

// refusedAsUnknown checks that calling the tool fails as calling a tool
// that does not exist does.
func refusedAsUnknown(t *testing.T, c *client, tool string) {
	t.Helper()
	res, _ := c.call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"id": "001", "status": "draft"}})
	if res.Error == nil || res.Error.Code != -32602 || res.Error.Message != "Unknown tool: "+tool {
		t.Errorf("tools/call %s = %+v %s, want -32602 Unknown tool", tool, res.Error, res.Result)
	}
}

func TestUpdateStudyFromTheDashboard(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(uiCapabilities)
	res, _ := c.callTool("update_study", map[string]any{"id": "002", "status": "completed"}, nil)
	var s Study
	if res.IsError || json.Unmarshal(res.StructuredContent, &s) != nil || s != (Study{ID: "002", Title: "Caffeine and mood", Status: "completed"}) {
		t.Fatalf("update_study = %+v", res)
	}
	if res.text() != "Study 002 (Caffeine and mood) is now completed." {
		t.Errorf("text %q", res.text())
	}
	got, _ := c.callTool("get_study", map[string]any{"id": "002"}, nil)
	if !strings.Contains(string(got.StructuredContent), `"status":"completed"`) {
		t.Errorf("get_study after the update = %s", got.StructuredContent)
	}
	for args, want := range map[string]string{
		`{"id":"999","status":"draft"}`:  `no study has the id "999"`,
		`{"id":"001","status":"paused"}`: `"status"`,
	} {
		if res, _ := c.callTool("update_study", json.RawMessage(args), nil); !res.IsError || !strings.Contains(res.text(), want) {
			t.Errorf("update_study(%s) = %+v, want isError with %s", args, res, want)
		}
	}
}

// Visibility widens nothing: the basic plan does not include
// update_study, and a client that renders UI, and so is shown app-only
// tools, still cannot see or call it.
func TestAppOnlyToolStaysBehindThePlan(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(uiCapabilities)
	if names := toolNames(c); slices.Contains(names, "update_study") {
		t.Errorf("basic plan sees %v", names)
	}
	refusedAsUnknown(t, c, "update_study")
}

func TestDashboardResource(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(uiCapabilities)
	var res struct {
		Contents []struct {
			URI      string          `json:"uri"`
			MIMEType string          `json:"mimeType"`
			Text     string          `json:"text"`
			Meta     json.RawMessage `json:"_meta"`
		} `json:"contents"`
	}
	c.result("resources/read", map[string]any{"uri": dashboardURI}, &res)
	if len(res.Contents) != 1 {
		t.Fatalf("contents %+v", res.Contents)
	}
	item := res.Contents[0]
	if item.URI != dashboardURI || item.MIMEType != "text/html;profile=mcp-app" || string(item.Meta) != `{"ui":{"prefersBorder":true}}` {
		t.Errorf("content %s %s %s", item.URI, item.MIMEType, item.Meta)
	}
	// Rendered for the caller, with the view script inline.
	for _, want := range []string{"<!DOCTYPE html>", "for Ursula Ultra", appview.Script, `<option value="recruiting">recruiting</option>`} {
		if !strings.Contains(item.Text, want) {
			t.Errorf("the dashboard lacks %.60q", want)
		}
	}
}
