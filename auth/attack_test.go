package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The challenges of rsaConfig's refusals.
const (
	challengeNoToken = `Bearer resource_metadata="` + testMetadata + `", scope="mcp:tools"`
	challengeInvalid = challengeNoToken + `, error="invalid_token"`
	challengeBadReq  = challengeNoToken + `, error="invalid_request"`
)

// unsigned builds a token with the given header and claims and no
// signature, as an attacker would by hand.
func unsigned(t *testing.T, header map[string]any, c jwt.MapClaims) string {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	p, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(h) + "." + enc.EncodeToString(p) + "."
}

// TestAttacks sends every attack through a real HTTP server and checks
// the exact status, challenge and body: nothing may panic, answer 500 or
// reach the handler.
func TestAttacks(t *testing.T) {
	rs := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c) }
	past, future := time.Now().Add(-2*time.Minute).Unix(), time.Now().Add(2*time.Minute).Unix()

	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&rsaKey().PublicKey))})
	valid := rs(claims())
	tampered := func() string {
		parts := strings.Split(valid, ".")
		p, _ := json.Marshal(claims(func(c jwt.MapClaims) { c["sub"] = "admin" }))
		return parts[0] + "." + base64.RawURLEncoding.EncodeToString(p) + "." + parts[2]
	}()
	otherEC := must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))

	tests := []struct {
		name      string
		target    string   // path and query; "/mcp" when empty
		authz     []string // Authorization headers
		status    int
		challenge string
		message   string
	}{
		{"no Authorization header", "", nil, 401, challengeNoToken, "Unauthorized: a bearer token is required"},
		{"Basic credentials", "", []string{"Basic dXNlcjpwYXNz"}, 401, challengeNoToken, "Unauthorized: a bearer token is required"},
		{"Bearer without token", "", []string{"Bearer"}, 400, challengeBadReq, "Bad Request: the Bearer credentials are empty"},
		{"Bearer with blank token", "", []string{"Bearer    "}, 400, challengeBadReq, "Bad Request: the Bearer credentials are empty"},
		{"two tokens in one header", "", []string{"Bearer " + valid + " " + valid}, 400, challengeBadReq, "Bad Request: the Bearer credentials are not a single token"},
		{"two comma-separated credentials", "", []string{"Bearer " + valid + ", Bearer " + valid}, 400, challengeBadReq, "Bad Request: the Bearer credentials are not a single token"},
		{"two Authorization headers", "", []string{"Bearer " + valid, "Bearer " + valid}, 400, challengeBadReq, "Bad Request: more than one Authorization header"},
		{"token in the query string", "/mcp?access_token=" + valid, nil, 400, challengeBadReq, "Bad Request: access tokens are not accepted in the query string; send Authorization: Bearer <token>"},
		{"query token beside a valid header", "/mcp?x=1&access_token=" + valid, []string{"Bearer " + valid}, 400, challengeBadReq, "Bad Request: access tokens are not accepted in the query string; send Authorization: Bearer <token>"},
		// The name is decoded before it is compared, as every query parser does.
		{"percent-encoded query token name", "/mcp?access%5Ftoken=" + valid, []string{"Bearer " + valid}, 400, challengeBadReq, "Bad Request: access tokens are not accepted in the query string; send Authorization: Bearer <token>"},
		{"fully encoded query token name", "/mcp?%61%63%63%65%73%73%5F%74%6F%6B%65%6E=" + valid, nil, 400, challengeBadReq, "Bad Request: access tokens are not accepted in the query string; send Authorization: Bearer <token>"},
		{"16 KiB token", "", []string{"Bearer " + strings.Repeat("A", 16<<10)}, 401, challengeInvalid, "Unauthorized: token too large"},
		{"not a JWT", "", []string{"Bearer abc.def"}, 401, challengeInvalid, "Unauthorized: malformed token"},
		{"forged signature (other key)", "", []string{"Bearer " + sign(t, jwt.SigningMethodRS256, otherKey(), "rsa", claims())}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"tampered payload", "", []string{"Bearer " + tampered}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"alg none", "", []string{"Bearer " + unsigned(t, map[string]any{"alg": "none", "typ": "JWT"}, claims())}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"alg none with kid", "", []string{"Bearer " + unsigned(t, map[string]any{"alg": "none", "kid": "rsa"}, claims())}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"HS256 signed with the RSA public key (HS/RS confusion)", "", []string{"Bearer " + sign(t, jwt.SigningMethodHS256, pubPEM, "rsa", claims())}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"ES256 token for an RSA kid", "", []string{"Bearer " + sign(t, jwt.SigningMethodES256, otherEC, "rsa", claims())}, 401, challengeInvalid, "Unauthorized: invalid token signature"},
		{"unknown kid", "", []string{"Bearer " + sign(t, jwt.SigningMethodRS256, rsaKey(), "nope", claims())}, 401, challengeInvalid, "Unauthorized: token signing key not recognized"},
		{"crit header", "", []string{"Bearer " + func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims())
			tok.Header["kid"], tok.Header["crit"] = "rsa", []string{"exp"}
			return must(tok.SignedString(rsaKey()))
		}()}, 401, challengeInvalid, "Unauthorized: token uses unsupported extensions"},
		{"expired", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["exp"] = past }))}, 401, challengeInvalid, "Unauthorized: token expired"},
		{"not yet valid (nbf)", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["nbf"] = future }))}, 401, challengeInvalid, "Unauthorized: token not valid yet"},
		{"issued in the future (iat)", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["iat"] = future }))}, 401, challengeInvalid, "Unauthorized: token issued in the future"},
		{"wrong issuer", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }))}, 401, challengeInvalid, `Unauthorized: token "iss" claim is not the accepted issuer`},
		{"no issuer", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { delete(c, "iss") }))}, 401, challengeInvalid, `Unauthorized: token lacks the "iss" claim`},
		{"wrong audience", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com/mcp" }))}, 401, challengeInvalid, `Unauthorized: token "aud" claim does not name this server`},
		{"no audience", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { delete(c, "aud") }))}, 401, challengeInvalid, `Unauthorized: token lacks the "aud" claim`},
		{"no exp", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { delete(c, "exp") }))}, 401, challengeInvalid, `Unauthorized: token lacks the "exp" claim`},
		{"exp of the wrong type", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { c["exp"] = "tomorrow" }))}, 401, challengeInvalid, `Unauthorized: token "exp" claim has the wrong type`},
		{"no subject", "", []string{"Bearer " + rs(claims(func(c jwt.MapClaims) { delete(c, "sub") }))}, 401, challengeInvalid, `Unauthorized: token lacks the "sub" claim`},
	}
	srv := serve(t, newVerifier(t, rsaConfig()))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if target == "" {
				target = "/mcp"
			}
			resp, body := call(t, srv.URL+target, tc.authz...)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d (body %s)", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", got, tc.challenge)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":` + string(must(json.Marshal(tc.message))) + `}}`
			if body != want {
				t.Errorf("body\n got %s\nwant %s", body, want)
			}
			for _, a := range tc.authz {
				if tok := strings.TrimPrefix(a, "Bearer "); len(tok) > 8 && strings.Contains(body, tok) {
					t.Error("the body echoes the token")
				}
			}
		})
	}
}
