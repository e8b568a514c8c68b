package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBrowserPagesOfListedOrigins: with Origins set, a page on such an
// origin gets its preflight answered before authentication and can read
// the session id of its answers; other origins get neither. Without
// Origins, no page is let in.
func TestBrowserPagesOfListedOrigins(t *testing.T) {
	const inspector = "http://localhost:6274"
	srv := startAppWith(t, func(cfg *config) { cfg.Origins = []string{inspector} })
	token := mint(t, srv, basicUser, grantedScopes(basicUser))
	send := func(method, origin string, header http.Header, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+mcpPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		req.Header.Set("Origin", origin)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	preflight := http.Header{"Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"authorization, content-type, mcp-protocol-version"}}
	if resp := send(http.MethodOptions, inspector, preflight.Clone(), ""); resp.StatusCode != http.StatusNoContent ||
		resp.Header.Get("Access-Control-Allow-Origin") != inspector || resp.Header.Get("Access-Control-Allow-Headers") != "authorization, content-type, mcp-protocol-version" {
		t.Errorf("the inspector's preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := send(http.MethodOptions, "http://localhost:9999", preflight.Clone(), ""); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another page's preflight: %d %v", resp.StatusCode, resp.Header)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`
	header := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	resp := send(http.MethodPost, inspector, header.Clone(), initialize)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" ||
		resp.Header.Get("Access-Control-Allow-Origin") != inspector || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("the inspector's initialize: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := send(http.MethodPost, "http://localhost:9999", header.Clone(), initialize); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another page's initialize: %d, want 403 from the DNS-rebinding guard", resp.StatusCode)
	}

	// The default: no origin is listed, so no preflight is answered.
	plain := startApp(t)
	req, _ := http.NewRequest(http.MethodOptions, plain.URL+mcpPath, nil)
	req.Header = preflight.Clone()
	req.Header.Set("Origin", inspector)
	presp, err := plain.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	if presp.StatusCode < 400 || presp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight to the default app: %d %v", presp.StatusCode, presp.Header)
	}
}
