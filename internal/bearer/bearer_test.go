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
	bare := httptest.NewRequest(http.MethodPost, "/", nil)
	withToken := httptest.NewRequest(http.MethodPost, "/", nil)
	withToken.Header.Set("Authorization", "Bearer x")
	named := bare.WithContext(bearer.WithResourceMetadata(bare.Context(), metadata))
	tests := []struct {
		req    *http.Request
		status int
		scope  string
		want   string
	}{
		{bare, http.StatusUnauthorized, "", `Bearer resource_metadata="https://fallback"`},
		{withToken, http.StatusUnauthorized, "", `Bearer resource_metadata="https://fallback", error="invalid_token"`},
		{named, http.StatusUnauthorized, "", `Bearer resource_metadata="` + metadata + `"`},
		{bare, http.StatusForbidden, "", ``},
		{bare, http.StatusForbidden, "a b", `Bearer resource_metadata="https://fallback", scope="a b", error="insufficient_scope"`},
		{bare, http.StatusTooManyRequests, "a", ``},
	}
	for _, tc := range tests {
		if got := bearer.Refusal(tc.req, tc.status, tc.scope, "https://fallback"); got != tc.want {
			t.Errorf("Refusal(%d, %q) = %s; want %s", tc.status, tc.scope, got, tc.want)
		}
	}
}
