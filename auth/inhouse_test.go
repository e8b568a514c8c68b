package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/auth"
)

// inHouseConfig accepts the HS256 tokens an app signs itself.
func inHouseConfig() auth.Config {
	return auth.Config{InHouse: true, Keys: map[string]any{"": hmacKey()}, Algorithms: []string{"HS256"}}
}

// appToken is a token the app signs at login: sub and exp, no iss, no aud.
func appToken(t *testing.T, edits ...func(jwt.MapClaims)) string {
	c := jwt.MapClaims{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()}
	for _, e := range edits {
		e(c)
	}
	return sign(t, jwt.SigningMethodHS256, hmacKey(), "", c)
}

func TestInHouse(t *testing.T) {
	withIssuer := inHouseConfig()
	withIssuer.Issuer = "notes-app" // any string: no OAuth issuer URL
	withAudience := inHouseConfig()
	withAudience.Audience = "notes-mcp"
	tests := []struct {
		name    string
		cfg     auth.Config
		token   string
		status  int
		message string // the 401's JSON-RPC error message
	}{
		{"no iss, no aud", inHouseConfig(), appToken(t), 200, ""},
		{"any iss and aud are ignored", inHouseConfig(), appToken(t, func(c jwt.MapClaims) { c["iss"], c["aud"] = "x", "y" }), 200, ""},
		{"expired", inHouseConfig(), appToken(t, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), 401, "token expired"},
		{"no exp", inHouseConfig(), appToken(t, func(c jwt.MapClaims) { delete(c, "exp") }), 401, `token lacks the "exp" claim`},
		{"no sub", inHouseConfig(), appToken(t, func(c jwt.MapClaims) { delete(c, "sub") }), 401, `token lacks the "sub" claim`},
		{"a sub that is a number", inHouseConfig(), appToken(t, func(c jwt.MapClaims) { c["sub"] = 42 }), 401, `token "sub" claim has the wrong type`},
		{"another secret", inHouseConfig(), sign(t, jwt.SigningMethodHS256, []byte("another secret of at least 32 bytes"), "",
			jwt.MapClaims{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()}), 401, "invalid token signature"},
		{"Issuer set: the issuer", withIssuer, appToken(t, func(c jwt.MapClaims) { c["iss"] = "notes-app" }), 200, ""},
		{"Issuer set: no iss", withIssuer, appToken(t), 401, `token lacks the "iss" claim`},
		{"Issuer set: another iss", withIssuer, appToken(t, func(c jwt.MapClaims) { c["iss"] = "blog-app" }), 401, `token "iss" claim is not the accepted issuer`},
		{"Audience set: the audience", withAudience, appToken(t, func(c jwt.MapClaims) { c["aud"] = "notes-mcp" }), 200, ""},
		{"Audience set: no aud", withAudience, appToken(t), 401, `token lacks the "aud" claim`},
		{"Audience set: another aud", withAudience, appToken(t, func(c jwt.MapClaims) { c["aud"] = "blog" }), 401, `token "aud" claim does not name this server`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := call(t, serve(t, newVerifier(t, tc.cfg)).URL, "Bearer "+tc.token)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, body %s; want %d", resp.StatusCode, body, tc.status)
			}
			if tc.status == 200 {
				return
			}
			// No metadata to name: the challenge is the bare Bearer one.
			want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: ` + strings.ReplaceAll(tc.message, `"`, `\"`) + `"}}`
			if c := resp.Header.Get("WWW-Authenticate"); c != `Bearer error="invalid_token"` || strings.TrimSpace(body) != want {
				t.Errorf("challenge %q, body %s; want %q, %s", c, body, `Bearer error="invalid_token"`, want)
			}
		})
	}
	resp, _ := call(t, serve(t, newVerifier(t, inHouseConfig())).URL)
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("no token: status %d, challenge %q; want 401 Bearer", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// An InHouse Config names only the fields that have no place in it, and
// has no metadata to mount.
func TestInHouseConfigValidation(t *testing.T) {
	cfg := inHouseConfig()
	cfg.AuthorizationServers = []string{"https://auth.example.com"}
	cfg.ResourceName = "Notes"
	_, err := auth.NewVerifier(cfg)
	want := "auth: invalid Config: AuthorizationServers describes the OAuth protected resource metadata, which InHouse tokens do not have: leave it unset\n" +
		"ResourceName describes the OAuth protected resource metadata, which InHouse tokens do not have: leave it unset"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "an InHouse Config has no protected resource metadata") {
			t.Errorf("MountMetadata of an InHouse Config panicked with %v", r)
		}
	}()
	auth.MountMetadata(echo.New(), inHouseConfig())
}

// The startup error of an OAuth Config names only what the user got
// wrong: a missing Issuer is not also an empty list of authorization
// servers the user never set.
func TestConfigErrorNamesOnlyWhatIsWrong(t *testing.T) {
	_, err := auth.NewVerifier(auth.Config{Keys: map[string]any{"": hmacKey()}, Algorithms: []string{"HS256"}, Resource: "http://localhost:8080/mcp"})
	want := `auth: invalid Config: Issuer is required: set it to the "iss" of your authorization server's tokens, or set InHouse for tokens your app issues itself`
	if err == nil || err.Error() != want {
		t.Errorf("error %v,\nwant %s", err, want)
	}
}
