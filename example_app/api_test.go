package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	specterclient "github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// connectAPI is the specter client of the app's MCP endpoint as u, in the
// era of version, over real HTTP.
func connectAPI(t *testing.T, srvURL string, token, version string) *specterclient.Client {
	t.Helper()
	tr := &specterclient.HTTPTransport{URL: srvURL + mcpPath, Header: http.Header{"Authorization": {"Bearer " + token}}}
	c, err := specterclient.Connect(context.Background(), tr, &specterclient.Options{Version: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.Close(ctx)
	})
	return c
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestAPIRoutesAsTools calls the REST API's routes through MCP, in both
// eras: in process, as the caller, with the plan's tools only.
func TestAPIRoutesAsTools(t *testing.T) {
	srv := startApp(t)
	ctx := context.Background()
	for _, version := range []string{mcp.LatestSessionVersion, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			basic := connectAPI(t, srv.URL, mint(t, srv, basicUser, grantedScopes(basicUser)), version)
			ultra := connectAPI(t, srv.URL, mint(t, srv, ultraUser, grantedScopes(ultraUser)), version)

			// The caller's identity reaches the route.
			res, err := basic.CallTool(ctx, "api_whoami", map[string]any{})
			var who struct{ ID, Plan string }
			if err != nil || res.IsError || json.Unmarshal(res.StructuredContent, &who) != nil || who.ID != basicUser.ID || who.Plan != "basic" {
				t.Fatalf("api_whoami as basic: %v %q", err, resultText(res))
			}
			// Path and query parameters.
			res, err = basic.CallTool(ctx, "api_get_study", map[string]any{"id": "007"})
			if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"id":"007"`) {
				t.Fatalf("api_get_study: %v %+v", err, res)
			}
			res, err = basic.CallTool(ctx, "api_get_study", map[string]any{"id": "999"})
			if err != nil || !res.IsError || !strings.Contains(resultText(res), "HTTP 404 Not Found") || !strings.Contains(resultText(res), "no study 999") {
				t.Fatalf("api_get_study 999: %v %+v", err, res)
			}
			res, err = basic.CallTool(ctx, "api_search_studies", map[string]any{"status": "completed"})
			var found struct {
				Studies []Study
				Total   int
			}
			if err != nil || res.IsError || json.Unmarshal(res.StructuredContent, &found) != nil || len(found.Studies) == 0 || found.Total != 120 || found.Studies[0].Status != "completed" {
				t.Fatalf("api_search_studies: %v, %d of %d", err, len(found.Studies), found.Total)
			}

			// Per-user filtering: a basic user neither sees nor calls the
			// tool that changes studies.
			list, err := basic.ListTools(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range list.Tools {
				if tool.Name == "api_set_study_status" {
					t.Error("a basic user sees api_set_study_status")
				}
			}
			if res, err := basic.CallTool(ctx, "api_set_study_status", map[string]any{"id": "008", "status": "draft"}); err == nil && !res.IsError {
				t.Error("a basic user changed a study")
			}
			// An ultra user does, with a JSON body.
			res, err = ultra.CallTool(ctx, "api_set_study_status", map[string]any{"id": "008", "status": "draft"})
			if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"status":"draft"`) {
				t.Fatalf("api_set_study_status as ultra: %v %+v", err, res)
			}
			// The schema from the document is enforced before the route runs.
			if res, err := ultra.CallTool(ctx, "api_set_study_status", map[string]any{"id": "008", "status": "lost"}); err == nil && !res.IsError {
				t.Error("an unknown status was accepted")
			}
		})
	}
}

// TestAPIOwnAuthorization checks that the REST API keeps its own
// authentication and authorization over HTTP: in-process calls skip
// neither (authenticated only trusts claims in the request's context).
func TestAPIOwnAuthorization(t *testing.T) {
	srv := startApp(t)
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/api/studies/008/status", strings.NewReader(`{"status":"draft"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+mint(t, srv, basicUser, nil))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("PUT as basic over HTTP: %d, want 403", resp.StatusCode)
	}
	// Without a token the API refuses, as before.
	resp, err = srv.Client().Get(srv.URL + "/api/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/me without a token: %d, want 401", resp.StatusCode)
	}
}
