package auth_test

import (
	"testing"

	"github.com/specter-mcp/specter/auth"
)

func TestChallenge(t *testing.T) {
	tests := []struct {
		url    string
		scopes []string
		code   string
		want   string
	}{
		{"", nil, "", `Bearer`},
		{"", nil, auth.CodeInvalidToken, `Bearer error="invalid_token"`},
		{testMetadata, nil, "", `Bearer resource_metadata="` + testMetadata + `"`},
		{testMetadata, []string{"files:read", "files:write"}, auth.CodeInsufficientScope,
			`Bearer resource_metadata="` + testMetadata + `", scope="files:read files:write", error="insufficient_scope"`},
		{"", []string{"a"}, auth.CodeInvalidRequest, `Bearer scope="a", error="invalid_request"`},
		{`https://x.example/"q"\`, nil, "", `Bearer resource_metadata="https://x.example/\"q\"\\"`},
	}
	for _, tc := range tests {
		if got := auth.Challenge(tc.url, tc.scopes, tc.code); got != tc.want {
			t.Errorf("Challenge(%q, %q, %q)\n got %s\nwant %s", tc.url, tc.scopes, tc.code, got, tc.want)
		}
	}
}
