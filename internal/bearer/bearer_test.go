package bearer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/specter-mcp/specter/internal/bearer"
)

const metadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

func TestChallenge(t *testing.T) {
	tests := []struct {
		url    string
		scopes []string
		code   string
		want   string
	}{
		{"", nil, "", `Bearer`},
		{"", nil, bearer.CodeInvalidToken, `Bearer error="invalid_token"`},
		{metadata, nil, "", `Bearer resource_metadata="` + metadata + `"`},
		{metadata, []string{"files:read", "files:write"}, bearer.CodeInsufficientScope,
			`Bearer resource_metadata="` + metadata + `", scope="files:read files:write", error="insufficient_scope"`},
		{"", []string{"a"}, bearer.CodeInvalidRequest, `Bearer scope="a", error="invalid_request"`},
		{`https://x.example/"q"\`, nil, "", `Bearer resource_metadata="https://x.example/\"q\"\\"`},
	}
	for _, tc := range tests {
		if got := bearer.Challenge(tc.url, tc.scopes, tc.code); got != tc.want {
			t.Errorf("Challenge(%q, %q, %q)\n got %s\nwant %s", tc.url, tc.scopes, tc.code, got, tc.want)
		}
	}
}

func TestResourceMetadataContext(t *testing.T) {
	ctx := context.Background()
	if got := bearer.ResourceMetadata(ctx); got != "" {
		t.Errorf("empty context: %q, want none", got)
	}
	ctx = bearer.WithResourceMetadata(ctx, metadata)
	if got := bearer.ResourceMetadata(ctx); got != metadata {
		t.Errorf("got %q, want %q", got, metadata)
	}
}

func TestRefusal(t *testing.T) {
	anon := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	withToken := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	withToken.Header.Set("Authorization", "Bearer x")
	fromAuth := anon.WithContext(bearer.WithResourceMetadata(anon.Context(), metadata))
	const fallback = "https://fallback.example/meta"
	tests := []struct {
		req    *http.Request
		status int
		scope  string
		want   string
	}{
		{anon, 401, "", `Bearer resource_metadata="` + fallback + `"`},
		{withToken, 401, "", `Bearer resource_metadata="` + fallback + `", error="invalid_token"`},
		{fromAuth, 401, "", `Bearer resource_metadata="` + metadata + `"`},
		{anon, 403, "a b", `Bearer resource_metadata="` + fallback + `", scope="a b", error="insufficient_scope"`},
		{anon, 403, "", ""},
		{anon, 429, "a", ""},
	}
	for _, tc := range tests {
		if got := bearer.Refusal(tc.req, tc.status, tc.scope, fallback); got != tc.want {
			t.Errorf("Refusal(%d, %q)\n got %s\nwant %s", tc.status, tc.scope, got, tc.want)
		}
	}
}
