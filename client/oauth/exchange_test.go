package oauth_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/mcp"
)

// TokenExchange trades the caller's token at the server's authorization
// server (RFC 8693) for one for the server, whose resource and audience
// it names; the server sees the exchanged token's user, and never the
// caller's token.
func TestTokenExchange(t *testing.T) {
	as := newTestAS(t)
	as.clients["gateway"] = "gateway-secret"
	as.subjects = map[string]string{"callers-token": "grace"}
	resource := notesServer(t, as)
	tr, err := oauth.New(oauth.Config{Grant: oauth.TokenExchange{
		Client:       oauth.Client{ID: "gateway", Secret: "gateway-secret"},
		SubjectToken: func(context.Context) (string, error) { return "callers-token", nil },
		Issuers:      []string{as.srv.URL},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	t.Cleanup(hc.CloseIdleConnections)
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: resource, Client: hc}, &client.Options{Version: mcp.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	res, err := c.CallTool(t.Context(), "list", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "list by grace" {
		t.Errorf("list = %q", got)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.exchanges) != 1 {
		t.Fatalf("%d exchanges", len(as.exchanges))
	}
	f := as.exchanges[0]
	if f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:access_token" || f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:access_token" || f.Get("scope") != "notes:read" {
		t.Errorf("exchange form %v", f)
	}

	// Without a subject token there is nothing to exchange.
	bare, err := oauth.New(oauth.Config{Grant: oauth.TokenExchange{
		Client:       oauth.Client{ID: "gateway", Secret: "gateway-secret"},
		SubjectToken: func(context.Context) (string, error) { return "", nil },
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Connect(t.Context(), &client.HTTPTransport{URL: resource, Client: &http.Client{Transport: bare}}, &client.Options{Version: mcp.Version20251125}); err == nil {
		t.Error("connected without a subject token")
	}
}
