package integration

import (
	"bufio"
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/middleware"
	"github.com/specter-mcp/specter/params"
)

// The attack suite: every attack goes through a real Echo server with
// auth.JWT and a rate limit on the MCP group, RFC 9728 metadata and a
// router, and must get exactly the answer in the README's table. The
// authServer fails each test in which anything panicked, answered 5xx or
// reported an internal error.

// authStatelessDiscover is the body and headers of a 2026-07-28 request.
const authStatelessDiscover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

func authStatelessHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set("MCP-Protocol-Version", mcp.Version20260728)
	out.Set("Mcp-Method", "server/discover")
	return out
}

// authUnsigned builds a token with the given header and claims and no
// signature, as an attacker would by hand.
func authUnsigned(t *testing.T, header map[string]any, c jwt.MapClaims) string {
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

func TestAuthTokenAttacks(t *testing.T) {
	as := newAuthServer(t, authSetup{})
	valid := as.token(t, "alice", "studies:read")
	claims := func(edits ...func(jwt.MapClaims)) jwt.MapClaims { return as.claims("alice", "studies:read", edits...) }
	rs := func(c jwt.MapClaims) string { return authSign(t, jwt.SigningMethodRS256, authKey(), authKid, c) }
	der, err := x509.MarshalPKIXPublicKey(&authKey().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	publicPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	past, future := time.Now().Add(-2*time.Minute).Unix(), time.Now().Add(2*time.Minute).Unix()
	big := rs(claims(func(c jwt.MapClaims) { c["padding"] = strings.Repeat("x", 16<<10) }))
	if len(big) < 16<<10 {
		t.Fatalf("the big token has only %d bytes", len(big))
	}
	invalid, badRequest := as.challenge(auth.CodeInvalidToken), as.challenge(auth.CodeInvalidRequest)

	tests := []struct {
		name      string
		target    string // path and query; the MCP endpoint when empty
		header    http.Header
		status    int
		challenge string
	}{
		{"valid token (control)", "", bearer(valid), 200, ""},
		{"no token", "", nil, 401, as.challenge("")},
		{"forged signature", "", bearer(authSign(t, jwt.SigningMethodRS256, authOther(), authKid, claims())), 401, invalid},
		{"tampered payload", "", bearer(func() string {
			parts := strings.Split(valid, ".")
			p, _ := json.Marshal(claims(func(c jwt.MapClaims) { c["scope"] = "studies:read studies:write" }))
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(p) + "." + parts[2]
		}()), 401, invalid},
		{"alg none", "", bearer(authUnsigned(t, map[string]any{"alg": "none", "typ": "JWT", "kid": authKid}, claims())), 401, invalid},
		{"HS256 signed with the RS256 public key", "", bearer(authSign(t, jwt.SigningMethodHS256, publicPEM, authKid, claims())), 401, invalid},
		{"expired", "", bearer(rs(claims(func(c jwt.MapClaims) { c["exp"] = past }))), 401, invalid},
		{"not yet valid", "", bearer(rs(claims(func(c jwt.MapClaims) { c["nbf"] = future }))), 401, invalid},
		{"wrong issuer", "", bearer(rs(claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }))), 401, invalid},
		{"wrong audience", "", bearer(rs(claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com/mcp" }))), 401, invalid},
		{"audience of another path on this host", "", bearer(rs(claims(func(c jwt.MapClaims) { c["aud"] = strings.TrimSuffix(as.resource, "/mcp") + "/admin" }))), 401, invalid},
		{"no exp", "", bearer(rs(claims(func(c jwt.MapClaims) { delete(c, "exp") }))), 401, invalid},
		{"token in the query string", "/mcp?access_token=" + valid, nil, 400, badRequest},
		{"token in the query string beside a valid header", "/mcp?access_token=" + valid, bearer(valid), 400, badRequest},
		{"16 KiB+ token", "", bearer(big), 401, invalid},
		{"unknown kid", "", bearer(authSign(t, jwt.SigningMethodRS256, authKey(), "k9", claims())), 401, invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, era := range []struct {
				name   string
				body   string
				header http.Header
			}{
				{"2025-11-25 initialize", authInitialize, tc.header},
				{"2026-07-28 server/discover", authStatelessDiscover, authStatelessHeader(tc.header)},
			} {
				resp, body := as.post(t, tc.target, era.header, strings.NewReader(era.body))
				if resp.StatusCode != tc.status {
					t.Errorf("%s: status %d, want %d (body %.200s)", era.name, resp.StatusCode, tc.status, body)
				}
				if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
					t.Errorf("%s: WWW-Authenticate\n got %s\nwant %s", era.name, got, tc.challenge)
				}
				if tc.status == 200 {
					continue
				}
				if code := authErrorCode(t, body); code != jsonrpc.CodeInvalidRequest {
					t.Errorf("%s: JSON-RPC code %d, want %d", era.name, code, jsonrpc.CodeInvalidRequest)
				}
				if bytes.Contains(body, []byte(valid[len(valid)-20:])) {
					t.Errorf("%s: the refusal echoes the token", era.name)
				}
			}
		})
	}
}

func TestAuthJWKSUnknownKidRefreshesOnceThen401(t *testing.T) {
	jwks := newAuthJWKS(t, map[string]*rsa.PublicKey{authKid: &authKey().PublicKey})
	var errs atomic.Int32
	as := newAuthServer(t, authSetup{jwt: func(cfg *auth.Config) {
		jwks.use(t, cfg, &errs)
		// The limiter allows the next refresh only after the test: a
		// refusal that waited for it would not come back.
		cfg.JWKSRefreshLimit = 24 * time.Hour
	}})
	if n := jwks.hits.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times at start, want 1", n)
	}
	ghost := bearer(authSign(t, jwt.SigningMethodRS256, authOther(), "ghost", as.claims("mallory", "")))
	for i := range 3 {
		resp, body := as.post(t, "", ghost, strings.NewReader(authInitialize))
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != as.challenge(auth.CodeInvalidToken) {
			t.Errorf("attempt %d: status %d, challenge %q, body %s", i, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// One fetch at start, one for the first unknown kid, none after.
	if n := jwks.hits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
	if resp, body := as.post(t, "", bearer(as.token(t, "alice", "")), strings.NewReader(authInitialize)); resp.StatusCode != http.StatusOK {
		t.Errorf("known kid after the unknown ones: status %d, body %s", resp.StatusCode, body)
	}
	if n := jwks.hits.Load(); n != 2 {
		t.Errorf("a known kid fetched the JWKS again (%d fetches)", n)
	}
}

func TestAuthJWKSDown(t *testing.T) {
	t.Run("cached keys keep working", func(t *testing.T) {
		jwks := newAuthJWKS(t, map[string]*rsa.PublicKey{authKid: &authKey().PublicKey})
		var errs atomic.Int32
		as := newAuthServer(t, authSetup{
			declare: authDeclareEcho,
			jwt: func(cfg *auth.Config) {
				jwks.use(t, cfg, &errs)
				cfg.JWKSRefreshInterval = 10 * time.Millisecond
			},
		})
		jwks.down.Store(true)
		waitUntil(t, "the background refresh failed twice", func() bool { return errs.Load() >= 2 })
		c := as.session(t, as.token(t, "alice", ""), mcp.LatestSessionVersion)
		if res, _, err := c.CallTool(ctx(t), "echo", map[string]any{"text": "still up"}); err != nil || text(t, res) != "still up" {
			t.Errorf("call with a cached key while the JWKS is down: %+v %v", res, err)
		}
		ghost := bearer(authSign(t, jwt.SigningMethodRS256, authOther(), "ghost", as.claims("mallory", "")))
		if resp, body := as.post(t, "", ghost, strings.NewReader(authInitialize)); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("unknown kid while the JWKS is down: status %d, body %s", resp.StatusCode, body)
		}
	})
	t.Run("nothing cached", func(t *testing.T) {
		jwks := newAuthJWKS(t, nil)
		jwks.down.Store(true)
		var errs atomic.Int32
		as := newAuthServer(t, authSetup{jwt: func(cfg *auth.Config) { jwks.use(t, cfg, &errs) }})
		if errs.Load() == 0 {
			t.Error("the failed first fetch was not reported")
		}
		resp, body := as.post(t, "", bearer(as.token(t, "alice", "")), strings.NewReader(authInitialize))
		const want = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: signing keys unavailable, try again later"}}`
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != as.challenge(auth.CodeInvalidToken) || string(body) != want {
			t.Errorf("status %d, challenge %q, body %s; want 401, %q, %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, as.challenge(auth.CodeInvalidToken), want)
		}
	})
}

// authDeclareEcho declares a tool that answers with its text.
func authDeclareEcho(r *specter.Router) {
	r.Tool("echo", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(p.String("text"))
	}, specter.Description("Echoes its text"), specter.ReadOnly(), params.String("text", params.Validate("required")))
}

func TestAuthSessionHijackIs404(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareEcho})
	owner := as.session(t, as.token(t, "alice", ""), mcp.LatestSessionVersion)
	thief := as.client(t, as.token(t, "mallory", "studies:read studies:write"))
	thief.SessionID, thief.Version = owner.SessionID, owner.Version

	resp, err := thief.Call(ctx(t), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	if err != nil || resp.Status != http.StatusNotFound || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("POST with another principal's session: %+v %v, want 404", resp, err)
	}
	var se *mcptest.StatusError
	if _, err := thief.Listen(ctx(t), ""); !errors.As(err, &se) || se.Status != http.StatusNotFound {
		t.Errorf("GET with another principal's session: %v, want 404", err)
	}
	if status, err := thief.Delete(ctx(t)); err != nil || status != http.StatusNotFound {
		t.Errorf("DELETE with another principal's session: %d %v, want 404", status, err)
	}
	// The owner, even with a new token, still has its session.
	owner.Header.Set("Authorization", "Bearer "+as.token(t, "alice", "studies:read"))
	if res, _, err := owner.CallTool(ctx(t), "echo", map[string]any{"text": "mine"}); err != nil || text(t, res) != "mine" {
		t.Errorf("the owner lost its session: %+v %v", res, err)
	}
}

func TestAuthRequestStateIsBoundToThePrincipal(t *testing.T) {
	var ran atomic.Int32
	as := newAuthServer(t, authSetup{declare: func(r *specter.Router) {
		r.Tool("delete_study", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			_, action, err := c.Elicit("Delete the study?", params.Must(params.Raw([]byte(`{"type":"object","properties":{"sure":{"type":"boolean"}},"required":["sure"]}`))))
			if err != nil {
				return specter.Error(err)
			}
			ran.Add(1)
			return specter.Reply(c.Principal() + " answered " + string(action))
		}, specter.Description("Deletes a study after asking"), specter.Destructive(true))
	}})
	alice, mallory := as.stateless(t, as.token(t, "alice", "")), as.stateless(t, as.token(t, "mallory", ""))

	round1, resp, err := alice.CallTool(ctx(t), "delete_study", nil)
	if err != nil || round1.ResultType != mcp.ResultInputRequired || round1.RequestState == "" {
		t.Fatalf("round 1 for alice: %+v %v", resp, err)
	}
	retry := mcptest.Retry(round1.RequestState,
		map[string]any{"elicitation-1": map[string]any{"action": "accept", "content": map[string]any{"sure": true}}})
	_, resp, err = mallory.CallTool(ctx(t), "delete_study", nil, retry)
	if !errors.As(err, new(*jsonrpc.Error)) || resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("alice's requestState presented by mallory: %+v %v, want HTTP 400 error -32602", resp, err)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the tool completed %d times with a stolen requestState", n)
	}
	done, resp, err := alice.CallTool(ctx(t), "delete_study", nil, retry)
	if err != nil || len(done.Content) != 1 || done.Content[0].(*mcp.TextContent).Text != "alice answered accept" {
		t.Errorf("alice's own retry: %+v %v", resp, err)
	}
}

func TestAuthSpoofedHostOrOriginIs403(t *testing.T) {
	as := newAuthServer(t, authSetup{})
	token := as.token(t, "alice", "")
	_, port, err := net.SplitHostPort(as.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	do := func(host, origin, authorization, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, as.srv.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if body == authStatelessDiscover {
			req.Header = authStatelessHeader(req.Header)
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := as.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	for _, tc := range []struct {
		name, host, origin string
		status             int
	}{
		{"loopback (control)", "localhost:" + port, "http://127.0.0.1:" + port, 200},
		{"spoofed Host", "evil.example.com", "", 403},
		{"spoofed Host with port", "evil.example.com:" + port, "", 403},
		{"spoofed Origin", "", "http://evil.example.com", 403},
		{"Origin null", "", "null", 403},
	} {
		for _, body := range []string{authInitialize, authStatelessDiscover} {
			status, answer := do(tc.host, tc.origin, "Bearer "+token, body)
			if status != tc.status {
				t.Errorf("%s: status %d, want %d (%s)", tc.name, status, tc.status, answer)
			}
			if tc.status == 403 && authErrorCode(t, answer) != jsonrpc.CodeInvalidRequest {
				t.Errorf("%s: the refusal is no -32600 error: %s", tc.name, answer)
			}
			if tc.status == 200 {
				continue
			}
			// Without a token the request is refused too: auth.JWT on
			// the group runs before the router's guard and answers 401.
			if status, answer := do(tc.host, tc.origin, "", body); status != http.StatusUnauthorized && status != http.StatusForbidden {
				t.Errorf("%s without a token: status %d, want 401 or 403 (%s)", tc.name, status, answer)
			}
		}
	}
}

func TestAuthBodyBombIs413(t *testing.T) {
	const limit = 64 << 10
	as := newAuthServer(t, authSetup{declare: authDeclareEcho, router: []specter.RouterOption{specter.MaxBodyBytes(limit)}})
	token := as.token(t, "alice", "")
	c := as.session(t, token, mcp.LatestSessionVersion)
	h := bearer(token)
	h.Set("Mcp-Session-Id", c.SessionID)
	h.Set("Mcp-Protocol-Version", c.Version)

	bomb := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("A", 1<<20) + `"}}}`
	resp, body := as.post(t, "", h, strings.NewReader(bomb))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || authErrorCode(t, body) != jsonrpc.CodeInvalidRequest {
		t.Errorf("1 MiB body: status %d, body %.200s; want 413 -32600", resp.StatusCode, body)
	}
	// A body of unannounced length that never ends is cut off at the limit.
	endless := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"`), io.LimitReader(authZeros{}, 256<<20))
	resp, body = as.post(t, "", h, endless)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || authErrorCode(t, body) != jsonrpc.CodeInvalidRequest {
		t.Errorf("chunked 256 MiB body: status %d, body %.200s; want 413 -32600", resp.StatusCode, body)
	}
	if res, _, err := c.CallTool(ctx(t), "echo", map[string]any{"text": "fine"}); err != nil || text(t, res) != "fine" {
		t.Errorf("the session after the bombs: %+v %v", res, err)
	}
}

// authZeros reads as an endless run of zeros ("0" characters).
type authZeros struct{}

func (authZeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

func TestAuthDeeplyNestedJSONIs400ParseError(t *testing.T) {
	as := newAuthServer(t, authSetup{})
	token := as.token(t, "alice", "")
	c := as.session(t, token, mcp.LatestSessionVersion)
	session := bearer(token)
	session.Set("Mcp-Session-Id", c.SessionID)
	session.Set("Mcp-Protocol-Version", c.Version)
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	deepObjects := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
	}{
		{"bare arrays, no session", bearer(token), deep},
		{"arrays in params, in a session", session, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":` + deep + `}}`},
		{"objects in params, in a session", session, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":` + deepObjects + `}}`},
		{"objects in params, 2026-07-28", authStatelessHeader(bearer(token)), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + deepObjects + `}}}`},
	} {
		resp, body := as.post(t, "", tc.header, strings.NewReader(tc.body))
		if resp.StatusCode != http.StatusBadRequest || authErrorCode(t, body) != jsonrpc.CodeParseError {
			t.Errorf("%s: status %d, body %.200s; want 400 -32700", tc.name, resp.StatusCode, body)
		}
	}
}

func TestAuthHugeBatch(t *testing.T) {
	// The rate limit counts each request of a batch: this one lets the
	// whole batch run.
	as := newAuthServer(t, authSetup{rate: &middleware.RateLimitConfig{Rate: 1000, Burst: 20_000}})
	token := as.token(t, "alice", "")
	c := as.session(t, token, mcp.Version20250326)
	h := bearer(token)
	h.Set("Mcp-Session-Id", c.SessionID)
	h.Set("Mcp-Protocol-Version", c.Version)
	batch := func(n int) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		}
		b.WriteByte(']')
		return b.String()
	}

	const n = 10000
	body := batch(n)
	if len(body) >= 4<<20 {
		t.Fatalf("the batch has %d bytes, more than the default body limit", len(body))
	}
	resp, answer := as.post(t, "", h, strings.NewReader(body))
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(answer, &answers) != nil {
		t.Fatalf("batch of %d: status %d, body %.200s", n, resp.StatusCode, answer)
	}
	seen := make(map[int]bool, n)
	for _, a := range answers {
		if string(a.Result) != "{}" || seen[a.ID] || a.ID < 0 || a.ID >= n {
			t.Fatalf("batch answer %d: result %s (seen %v)", a.ID, a.Result, seen[a.ID])
		}
		seen[a.ID] = true
	}
	if len(answers) != n {
		t.Errorf("%d answers to %d requests", len(answers), n)
	}
	// Bounded: one answer per request, a few dozen bytes each.
	if len(answer) > 40*n {
		t.Errorf("the answer has %d bytes, over 40 per request", len(answer))
	}

	over := batch(100000)
	if len(over) <= 4<<20 {
		t.Fatalf("the oversized batch has only %d bytes", len(over))
	}
	resp, answer = as.post(t, "", h, strings.NewReader(over))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || authErrorCode(t, answer) != jsonrpc.CodeInvalidRequest {
		t.Errorf("batch over the body limit: status %d, body %.200s; want 413 -32600", resp.StatusCode, answer)
	}
	if _, err := c.Call(ctx(t), "ping", nil); err != nil {
		t.Errorf("the session after the batches: %v", err)
	}
}

// neverReader is an auth server with a tool whose NoReply work streams
// 32 MiB of log messages (more than any socket buffers hold), and the
// session of a client that sends requests on raw connections and never
// reads a byte of the answers.
type neverReader struct {
	as      *authServer
	token   string
	session *mcptest.Client
	sent    atomic.Int64  // log messages the work has sent
	done    chan struct{} // closed when the work ends
}

const (
	floodChunks     = 64
	floodChunkBytes = 512 << 10
)

func newNeverReader(t *testing.T, writeTimeout time.Duration) *neverReader {
	if testing.Short() {
		t.Skip("fills a socket buffer that is never read; skipped with -short")
	}
	nr := &neverReader{done: make(chan struct{})}
	nr.as = newAuthServer(t, authSetup{
		router: []specter.RouterOption{specter.WriteTimeout(writeTimeout)},
		declare: func(r *specter.Router) {
			authDeclareEcho(r)
			r.Tool("flood", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
				return specter.NoReply(func(s *specter.Stream) specter.Result {
					defer close(nr.done)
					chunk := strings.Repeat("x", floodChunkBytes)
					for range floodChunks {
						if err := s.Log(mcp.LevelInfo, chunk); err != nil {
							return specter.Error(err)
						}
						nr.sent.Add(1)
					}
					return specter.Reply("flooded")
				})
			}, specter.Description("Streams 32 MiB of log messages"))
		},
	})
	nr.token = nr.as.token(t, "slowpoke", "")
	nr.session = nr.as.session(t, nr.token, mcp.LatestSessionVersion)
	return nr
}

// open sends a raw request and returns its connection, which the test
// does not read. what is "POST" for a call of the flood tool, "GET" for
// the session's GET stream; rcvbuf sets the connection's receive buffer
// (0 leaves the system's).
func (nr *neverReader) open(t *testing.T, what string, rcvbuf int) net.Conn {
	t.Helper()
	addr := nr.as.srv.Listener.Addr().String()
	headers := "Host: " + addr + "\r\nAuthorization: Bearer " + nr.token + "\r\nMcp-Session-Id: " + nr.session.SessionID +
		"\r\nMcp-Protocol-Version: " + nr.session.Version + "\r\n"
	request := "GET /mcp HTTP/1.1\r\n" + headers + "Accept: text/event-stream\r\n\r\n"
	if what == "POST" {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"flood"}}`
		request = "POST /mcp HTTP/1.1\r\n" + headers + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if rcvbuf > 0 {
		if err := conn.(*net.TCPConn).SetReadBuffer(rcvbuf); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return conn
}

// finished waits for the flood's work to end and checks that it sent every
// message: a client that does not read loses its connection, not its
// messages (they stay buffered for a resume).
func (nr *neverReader) finished(t *testing.T, why string) {
	t.Helper()
	select {
	case <-nr.done:
	case <-testCtx(t).Done():
		t.Fatalf("the flood's work never ended %s (%d of %d messages sent)", why, nr.sent.Load(), floodChunks)
	}
	if n := nr.sent.Load(); n != floodChunks {
		t.Errorf("the work sent %d of %d messages", n, floodChunks)
	}
}

// TestAuthClientThatNeverReads: while the server's write to a client that
// reads nothing is stuck, every other client is served and broadcasts go
// on. WriteTimeout is longer than any test, so the write stays stuck until
// the client leaves: nothing here depends on how fast the machine is, and
// a server that made others wait for the stuck write would hang them
// until the test's deadline.
func TestAuthClientThatNeverReads(t *testing.T) {
	nr := newNeverReader(t, time.Hour)
	as := nr.as
	other := as.session(t, as.token(t, "bob", ""), mcp.LatestSessionVersion)
	if _, err := other.ListTools(ctx(t)); err != nil {
		t.Fatal(err)
	}
	baseline := runtime.NumGoroutine()
	postConn := nr.open(t, "POST", 4096) // a streaming tool call
	getConn := nr.open(t, "GET", 4096)   // the session's GET stream

	// Wait until the server's write to the POST connection is stuck: the
	// work sent some messages and sends no more. A pause the scheduler
	// made instead only starts the checks below early.
	cx := testCtx(t)
	for last, still := int64(-1), 0; still < 3; {
		select {
		case <-nr.done:
			t.Fatalf("all %d messages were written to a client that reads nothing", floodChunks)
		case <-cx.Done():
			t.Fatalf("the flood never got stuck (%d messages sent)", nr.sent.Load())
		case <-time.After(50 * time.Millisecond):
		}
		if n := nr.sent.Load(); n > 0 && n == last {
			still++
		} else {
			last, still = n, 0
		}
	}

	// Meanwhile every other client is served, and a notification that
	// reaches the GET stream nobody reads returns.
	for i := range 3 {
		res, _, err := other.CallTool(cx, "echo", map[string]any{"text": strconv.Itoa(i)})
		if err != nil || text(t, res) != strconv.Itoa(i) {
			t.Fatalf("another client while one is stuck: %+v %v", res, err)
		}
	}
	notified := make(chan struct{})
	go func() { as.r.NotifyToolsChanged(); close(notified) }()
	select {
	case <-notified:
	case <-cx.Done():
		t.Fatal("a notification waits for a client that does not read")
	}
	select {
	case <-nr.done:
		t.Fatal("the stuck write ended while the client was still there")
	default:
	}

	// Once the client goes away the write fails at once, the work sends
	// the rest into the buffer and ends, and nothing of the client remains
	// running.
	postConn.Close()
	getConn.Close()
	nr.finished(t, "after its client left")
	waitUntil(t, fmt.Sprintf("goroutines are back to the baseline of %d", baseline), func() bool {
		return runtime.NumGoroutine() <= baseline
	})
	if res, _, err := other.CallTool(cx, "echo", map[string]any{"text": "after"}); err != nil || text(t, res) != "after" {
		t.Errorf("another client after the stuck one left: %+v %v", res, err)
	}
}

// TestAuthWriteTimeoutDropsAClientThatNeverReads: a write to a client that
// reads nothing gives up after WriteTimeout, so the work finishes although
// the client neither reads nor leaves (only the timeout can free it), and
// the server hangs up on the client.
func TestAuthWriteTimeoutDropsAClientThatNeverReads(t *testing.T) {
	nr := newNeverReader(t, 50*time.Millisecond)
	baseline := runtime.NumGoroutine()
	// A receive buffer the system sizes: the flood fills it and the
	// server's, and the rest drains at once when the test reads (one
	// smaller than a segment would have the server send what it buffered
	// on window probes, minutes apart).
	conn := nr.open(t, "POST", 0)
	nr.finished(t, "while its client held the connection open")
	// The server closed the connection: reading it now ends with EOF (or
	// a reset) after what the kernel buffered, not with a deadline.
	deadline, _ := testCtx(t).Deadline()
	if err := conn.SetReadDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, conn); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the server kept the connection of a client that reads nothing")
	}
	conn.Close()
	waitUntil(t, fmt.Sprintf("goroutines are back to the baseline of %d", baseline), func() bool {
		return runtime.NumGoroutine() <= baseline
	})
}

// A notification for every listener must not wait for one that does not
// read: whoever broadcasts (a handler serving another client, or a
// declaration added while serving) would wait WriteTimeout for each
// stuck listener. The WriteTimeout is an hour, so a broadcast that waits
// for the listener hangs until the test's deadline.
func TestAuthBroadcastDoesNotWaitForAListenerThatNeverReads(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a socket buffer that is never read; skipped with -short")
	}
	as := newAuthServer(t, authSetup{router: []specter.RouterOption{specter.WriteTimeout(time.Hour)}})
	token := as.token(t, "slowpoke", "")
	c := as.session(t, token, mcp.LatestSessionVersion)
	addr := as.srv.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+token+
		"\r\nMcp-Session-Id: "+c.SessionID+"\r\nMcp-Protocol-Version: "+c.Version+"\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The stream is open, a listener that receives notifications, once
	// its header arrived; from then on the client reads nothing, and
	// enough notifications fill every buffer on the way.
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 16), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ; sent.Load() < 100000; sent.Add(1) {
			as.r.NotifyToolsChanged()
		}
	}()
	select {
	case <-done:
	case <-testCtx(t).Done():
		t.Fatalf("notification %d waits for a client that does not read", sent.Load())
	}
}

func TestAuthRateLimitIs429WithRetryAfter(t *testing.T) {
	as := newAuthServer(t, authSetup{rate: &middleware.RateLimitConfig{Rate: 0.5, Burst: 2}})
	greedy := bearer(as.token(t, "greedy", ""))
	for i := range 2 {
		if resp, body := as.post(t, "", greedy, strings.NewReader(authInitialize)); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d within the burst: status %d, body %s", i, resp.StatusCode, body)
		}
	}
	for _, era := range []struct {
		body   string
		header http.Header
	}{{authInitialize, greedy}, {authStatelessDiscover, authStatelessHeader(greedy)}} {
		resp, body := as.post(t, "", era.header, strings.NewReader(era.body))
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" || authErrorCode(t, body) != -32000 {
			t.Errorf("over the limit: status %d, Retry-After %q, body %s; want 429, 2, -32000", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	// Buckets are per principal: another caller is not limited.
	if resp, body := as.post(t, "", bearer(as.token(t, "patient", "")), strings.NewReader(authInitialize)); resp.StatusCode != http.StatusOK {
		t.Errorf("another principal: status %d, body %s", resp.StatusCode, body)
	}
	// Authentication comes first: a bad token is refused, not counted.
	if resp, _ := as.post(t, "", bearer("not.a.token"), strings.NewReader(authInitialize)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad token: status %d, want 401", resp.StatusCode)
	}
}
