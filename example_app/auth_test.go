package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// postRaw sends body to the MCP endpoint with the given Authorization
// header (none when empty) and returns the answer with its body read.
func postRaw(t *testing.T, srv *httptest.Server, authorization, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+mcpPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// metadataURL is the protected resource metadata URL of srv's app.
func metadataURL(srv *httptest.Server) string {
	return srv.URL + "/.well-known/oauth-protected-resource" + mcpPath
}

func TestRequestsWithoutAValidTokenAreRefused(t *testing.T) {
	srv := startApp(t)
	sign := func(c jwt.MapClaims, key []byte) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{
			"iss": srv.URL, "aud": srv.URL + mcpPath, "sub": basicUser.ID, "plan": "basic",
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
		}
		edit(c)
		return c
	}
	valid := mint(t, srv, basicUser, nil)
	unsigned := func() string {
		parts := strings.Split(valid, ".")
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
		return h + "." + parts[1] + "."
	}()
	// The challenges name the scopes the metadata lists: one auth.Config
	// states both.
	noToken := `Bearer resource_metadata="` + metadataURL(srv) + `", scope="` + scopeJobs + `"`
	invalid := noToken + `, error="invalid_token"`

	for _, tc := range []struct {
		name, authorization string
		status              int
		challenge           string
	}{
		{"missing", "", 401, noToken},
		{"other scheme", "Basic dXNlcjpwYXNz", 401, noToken},
		{"not a JWT", "Bearer not-a-token", 401, invalid},
		{"signed with another secret", "Bearer " + sign(claims(func(jwt.MapClaims) {}), []byte("another secret, also 32 bytes long")), 401, invalid},
		{"unsigned (alg none)", "Bearer " + unsigned, 401, invalid},
		{"expired", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), testSecret), 401, invalid},
		{"for another server", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com/mcp" }), testSecret), 401, invalid},
		{"from another issuer", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }), testSecret), 401, invalid},
		{"empty bearer", "Bearer ", 400, noToken + `, error="invalid_request"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := postRaw(t, srv, tc.authorization, initializeBody)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", got, tc.challenge)
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil || m.Error == nil {
				t.Errorf("body is not a JSON-RPC error (%v): %s", err, body)
			}
		})
	}
}

func TestTokenWithoutAKnownPlanIs403(t *testing.T) {
	srv := startApp(t)
	tok := mint(t, srv, user{ID: "user-gold", Name: "Goldie", Plan: "gold"}, nil)
	resp, body := postRaw(t, srv, "Bearer "+tok, initializeBody)
	if resp.StatusCode != http.StatusForbidden || !bytes.Contains(body, []byte("plan")) {
		t.Errorf("status %d, body %s; want 403 naming the plan", resp.StatusCode, body)
	}
}

func TestMetadataAtBothWellKnownURLs(t *testing.T) {
	srv := startApp(t)
	for _, url := range []string{metadataURL(srv), srv.URL + "/.well-known/oauth-protected-resource"} {
		resp, err := srv.Client().Get(url)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Resource               string   `json:"resource"`
			AuthorizationServers   []string `json:"authorization_servers"`
			ScopesSupported        []string `json:"scopes_supported"`
			BearerMethodsSupported []string `json:"bearer_methods_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d, %v", url, resp.StatusCode, err)
		}
		if m.Resource != srv.URL+mcpPath || !slices.Equal(m.AuthorizationServers, []string{srv.URL}) ||
			!slices.Equal(m.ScopesSupported, []string{scopeJobs}) || !slices.Equal(m.BearerMethodsSupported, []string{"header"}) {
			t.Errorf("GET %s: %+v", url, m)
		}
	}
}

func TestToolsListDependsOnPlan(t *testing.T) {
	srv := startApp(t)
	for _, tc := range []struct {
		u    user
		want []string
	}{
		// A client without MCP Apps does not see update_study (apps_test.go).
		{basicUser, []string{"api_get_study", "api_search_studies", "api_whoami", "foo", "get_study", "list_studies", "whoami"}},
		{ultraUser, []string{"api_get_study", "api_search_studies", "api_set_study_status", "api_whoami", "foo", "get_study", "list_studies", "long_task", "whoami"}},
	} {
		c := newClient(t, srv, tc.u)
		c.initialize(nil)
		if names := toolNames(c); !slices.Equal(names, tc.want) {
			t.Errorf("%s sees tools %v, want %v", tc.u.Name, names, tc.want)
		}
	}
}

// toolNames lists the tools c sees, sorted.
func toolNames(c *client) []string {
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	c.result("tools/list", map[string]any{}, &res)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// A tool outside the caller's plan must be indistinguishable from a tool
// that does not exist.
func TestHiddenToolFailsLikeUnknownTool(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)
	errorFor := func(name string) rpcError {
		res, _ := c.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{"steps": 1}})
		if res.Error == nil {
			t.Fatalf("calling %s succeeded: %s", name, res.Result)
		}
		e := *res.Error
		e.Message = strings.ReplaceAll(e.Message, name, "<name>")
		e.Data = bytes.ReplaceAll(e.Data, []byte(name), []byte("<name>"))
		return e
	}
	hidden, unknown := errorFor("long_task"), errorFor("no_such_tool")
	if hidden.Code != unknown.Code || hidden.Message != unknown.Message || !bytes.Equal(hidden.Data, unknown.Data) {
		t.Errorf("hidden tool error %+v differs from unknown tool error %+v", hidden, unknown)
	}
}

// An ultra user whose token lacks jobs:run does not see long_task, and
// calling it answers 403 with a challenge naming the scope (step-up).
func TestLongTaskNeedsTheJobsScope(t *testing.T) {
	srv := startApp(t)
	c := newTokenClient(t, srv, mint(t, srv, ultraUser, nil))
	c.initialize(nil)
	if names := toolNames(c); slices.Contains(names, "long_task") {
		t.Errorf("a token without %s sees long_task: %v", scopeJobs, names)
	}
	resp := c.post(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{"name": "long_task", "arguments": map[string]any{"steps": 1}}})
	defer drain(resp)
	want := `Bearer resource_metadata="` + metadataURL(srv) + `", scope="jobs:run", error="insufficient_scope"`
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("status %d, WWW-Authenticate %q; want 403, %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	var m message
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Error == nil || !strings.Contains(m.Error.Message, scopeJobs) {
		t.Errorf("body %+v (%v), want a JSON-RPC error naming %s", m, err, scopeJobs)
	}
}

func TestRateLimitPerCaller(t *testing.T) {
	srv := startAppWith(t, func(cfg *config) { cfg.Rate, cfg.Burst = 1, 2 })
	basic, ultra := "Bearer "+mint(t, srv, basicUser, nil), "Bearer "+mint(t, srv, ultraUser, nil)
	for i := range 2 {
		if resp, body := postRaw(t, srv, basic, initializeBody); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d, %s", i, resp.StatusCode, body)
		}
	}
	resp, body := postRaw(t, srv, basic, initializeBody)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("third request in a burst of 2: status %d, Retry-After %q, %s; want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, body := postRaw(t, srv, ultra, initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("another caller: status %d, %s", resp.StatusCode, body)
	}
}
