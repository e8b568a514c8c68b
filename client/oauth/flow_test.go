package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// testAS is a small OAuth 2.1 authorization server: metadata (RFC 8414),
// dynamic registration, the authorization endpoint (which approves at
// once, as a user would), and the token endpoint for authorization codes
// with PKCE and refresh tokens. It grants every asked scope but
// "notes:admin", and mints tokens its resource server accepts.
type testAS struct {
	t   *testing.T
	srv *httptest.Server
	dev *auth.DevIssuer

	mu       sync.Mutex
	clients  map[string]string   // client_id -> client_secret
	codes    map[string]authCode // outstanding codes
	refresh  map[string][]string // refresh token -> scopes
	granted  [][]string          // scopes of each authorization, in order
	refreshs int
	// firstExpiresIn is the expires_in of the first access token; the
	// client must refresh it before its next request.
	firstExpiresIn int
	tokens         int
	// iss, if set, is the iss of authorization responses in place of
	// the issuer: a mix-up attack.
	iss string
	// subjects are the subject tokens token exchange accepts, each
	// naming its user; exchanges lists the forms of the exchanges made.
	subjects  map[string]string
	exchanges []url.Values
}

type authCode struct {
	clientID, challenge, redirect, resource string
	scopes                                  []string
}

func newTestAS(t *testing.T) *testAS {
	as := &testAS{t: t, clients: map[string]string{}, codes: map[string]authCode{}, refresh: map[string][]string{}, firstExpiresIn: 1}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) metadata(w http.ResponseWriter, _ *http.Request) {
	u := as.srv.URL
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         as.srv.URL,
		"authorization_endpoint":                         u + "/authorize",
		"token_endpoint":                                 u + "/token",
		"registration_endpoint":                          u + "/register",
		"scopes_supported":                               []string{"notes:read", "notes:write", "notes:admin", "offline_access"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic"},
		"authorization_response_iss_parameter_supported": true,
	})
}

func (as *testAS) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs    []string `json:"redirect_uris"`
		AuthMethod      string   `json:"token_endpoint_auth_method"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) != 1 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	if req.AuthMethod != oauth.AuthBasic || req.ApplicationType != "native" {
		as.t.Errorf("registration: auth method %q, application type %q", req.AuthMethod, req.ApplicationType)
	}
	as.mu.Lock()
	id := "client-" + string(rune('a'+len(as.clients)))
	as.clients[id] = "secret-of-" + id
	as.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_secret": "secret-of-" + id, "token_endpoint_auth_method": oauth.AuthBasic,
		"redirect_uris": req.RedirectURIs,
	})
}

func (as *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	_, known := as.clients[q.Get("client_id")]
	as.mu.Unlock()
	switch {
	case !known, q.Get("response_type") != "code", q.Get("code_challenge_method") != "S256", q.Get("code_challenge") == "":
		http.Error(w, "bad authorization request: "+q.Encode(), http.StatusBadRequest)
		return
	case q.Get("resource") != as.dev.Resource:
		http.Error(w, "resource "+q.Get("resource")+" is not "+as.dev.Resource, http.StatusBadRequest)
		return
	}
	var scopes []string
	for _, s := range strings.Fields(q.Get("scope")) {
		if s != "notes:admin" {
			scopes = append(scopes, s)
		}
	}
	code := "code-" + q.Get("state")
	as.mu.Lock()
	as.codes[code] = authCode{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource"), scopes: scopes}
	as.granted = append(as.granted, scopes)
	as.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	iss := as.srv.URL
	if as.iss != "" {
		iss = as.iss
	}
	v := url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {iss}}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	as.mu.Lock()
	defer as.mu.Unlock()
	if !ok || as.clients[id] != secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var scopes []string
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		c, found := as.codes[r.PostFormValue("code")]
		delete(as.codes, r.PostFormValue("code"))
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		switch {
		case !found, c.clientID != id, c.redirect != r.PostFormValue("redirect_uri"),
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge, c.resource != r.PostFormValue("resource"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		scopes = c.scopes
	case "urn:ietf:params:oauth:grant-type:token-exchange":
		as.exchanges = append(as.exchanges, r.PostForm)
		user, found := as.subjects[r.PostFormValue("subject_token")]
		if !found || r.PostFormValue("resource") != as.dev.Resource || r.PostFormValue("audience") != as.dev.Resource {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": as.dev.Token(user, strings.Fields(r.PostFormValue("scope"))...), "token_type": "Bearer", "expires_in": 3600,
			"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
		})
		return
	case "refresh_token":
		var found bool
		if scopes, found = as.refresh[r.PostFormValue("refresh_token")]; !found || r.PostFormValue("resource") != as.dev.Resource {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(as.refresh, r.PostFormValue("refresh_token"))
		as.refreshs++
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	as.tokens++
	expiresIn := 3600
	if as.tokens == 1 {
		expiresIn = as.firstExpiresIn
	}
	refresh := "refresh-" + r.PostFormValue("code") + r.PostFormValue("refresh_token") + "+"
	as.refresh[refresh] = scopes
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": as.dev.Token("ada", scopes...), "token_type": "Bearer", "expires_in": expiresIn,
		"refresh_token": refresh, "scope": strings.Join(scopes, " "),
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// notesServer is a Specter router behind auth.JWT, accepting the tokens
// of as: "list" needs notes:read (the scope of the challenge), "write"
// notes:write and "purge" notes:admin, which as never grants.
func notesServer(t *testing.T, as *testAS) string {
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().String() + "/mcp"
	as.dev = &auth.DevIssuer{Secret: []byte("a secret of at least thirty-two bytes"), Issuer: as.srv.URL, Resource: resource}
	cfg := as.dev.Config()
	cfg.Scopes = []string{"notes:read"}

	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	for name, scope := range map[string]string{"list": "notes:read", "write": "notes:write", "purge": "notes:admin"} {
		r.Tool(name, func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			return specter.Reply(name + " by " + c.Principal())
		}, specter.Scopes(scope), specter.Description("The "+name+" tool, needing "+scope))
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	auth.MountMetadata(e, cfg)
	r.Mount(e.Group("/mcp", auth.JWT(cfg)))
	srv.Config.Handler = e
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return resource
}

// TestAuthorizationCodeFlow runs the whole authorization of an MCP client
// against a protected Specter server, in both eras: the 401 leads to the
// resource metadata and the authorization server's, the client registers,
// is authorized with PKCE and the resource indicator, refreshes its
// expiring token, steps up for a scope a tool needs, and gives up on a
// scope it is never granted after the step-up limit.
func TestAuthorizationCodeFlow(t *testing.T) {
	for _, version := range []string{mcp.Version20260728, mcp.Version20251125} {
		t.Run(version, func(t *testing.T) {
			as := newTestAS(t)
			resource := notesServer(t, as)
			tr, err := oauth.New(oauth.Config{Redirect: oauth.FollowRedirect{}, OfflineAccess: true})
			if err != nil {
				t.Fatal(err)
			}
			hc := &http.Client{Transport: tr}
			t.Cleanup(hc.CloseIdleConnections)
			ctx := t.Context()
			c, err := client.Connect(ctx, &client.HTTPTransport{URL: resource, Client: hc}, &client.Options{Version: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := c.Close(context.Background()); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			call := func(name, want string) {
				t.Helper()
				res, err := c.CallTool(ctx, name, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			call("list", "list by ada")
			as.mu.Lock()
			if len(as.clients) != 1 || as.refreshs != 1 {
				t.Errorf("%d registrations, %d refreshes: want 1 and 1 (the first token expires at once)", len(as.clients), as.refreshs)
			}
			if want := []string{"notes:read", "offline_access"}; len(as.granted) != 1 || !slices.Equal(as.granted[0], want) {
				t.Errorf("authorizations %v, want one for %v (the challenge's scope)", as.granted, want)
			}
			as.mu.Unlock()

			call("write", "write by ada") // 403 insufficient_scope, then step-up
			as.mu.Lock()
			if want := []string{"notes:read", "notes:write", "offline_access"}; len(as.granted) != 2 || !slices.Equal(as.granted[1], want) {
				t.Errorf("authorizations %v, want a second for %v", as.granted, want)
			}
			as.mu.Unlock()
			if tok := tr.Token(resource); tok == nil || !strings.Contains(tok.Scope, "notes:write") {
				t.Errorf("token held %+v", tok)
			}

			// notes:admin is never granted: two step-ups, then the
			// server's refusal.
			_, err = c.CallTool(ctx, "purge", nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeForbidden {
				t.Fatalf("purge: %v, want the server's forbidden error", err)
			}
			as.mu.Lock()
			if len(as.granted) != 4 || len(as.clients) != 1 {
				t.Errorf("%d authorizations, %d registrations: want 4 (two step-ups) and 1", len(as.granted), len(as.clients))
			}
			as.mu.Unlock()
			call("list", "list by ada") // the token still serves
		})
	}
}

// TestAuthorizationResponseFromAnotherIssuer refuses a code whose
// authorization response names another issuer (RFC 9207), before the
// code reaches any token endpoint.
func TestAuthorizationResponseFromAnotherIssuer(t *testing.T) {
	as := newTestAS(t)
	as.iss = "https://attacker.example"
	resource := notesServer(t, as)
	tr, err := oauth.New(oauth.Config{Redirect: oauth.FollowRedirect{}})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	t.Cleanup(hc.CloseIdleConnections)
	_, err = client.Connect(t.Context(), &client.HTTPTransport{URL: resource, Client: hc}, nil)
	if err == nil || !strings.Contains(err.Error(), `issuer "https://attacker.example"`) {
		t.Fatalf("connect: %v, want the issuer mismatch", err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.tokens != 0 {
		t.Errorf("%d tokens issued", as.tokens)
	}
}

// TestLoopbackRedirect authorizes the way a command-line tool does: the
// "browser" follows the authorization page to the tool's loopback
// listener.
func TestLoopbackRedirect(t *testing.T) {
	as := newTestAS(t)
	c, opened, page := loopbackLogin(t, notesServer(t, as), nil)
	if !strings.HasPrefix(opened, as.srv.URL+"/authorize?") {
		t.Errorf("opened %s", opened)
	}
	if !strings.Contains(page, "close this window") {
		t.Errorf("the browser shows %q", page)
	}
	if _, err := c.CallTool(t.Context(), "list", nil); err != nil {
		t.Error(err)
	}
}

// loopbackLogin connects to resource through a LoopbackRedirect on a free
// loopback port, whose "browser" follows the authorization page to the
// listener once before(redirect URI) has run. It returns the client, the
// URL opened last and the page the browser was shown.
func loopbackLogin(t *testing.T, resource string, before func(redirect string)) (c *client.Client, opened, page string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the redirect URI
	if err != nil {
		t.Fatal(err)
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	ln.Close()
	browser := &http.Client{}
	t.Cleanup(browser.CloseIdleConnections)
	var browsers sync.WaitGroup
	tr, err := oauth.New(oauth.Config{RedirectURL: redirect, Redirect: oauth.LoopbackRedirect{Open: func(authURL string) error {
		if before != nil {
			before(redirect)
		}
		opened = authURL
		browsers.Add(1)
		go func() {
			defer browsers.Done()
			res, err := browser.Get(authURL) // follows the redirect to the listener
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			page = string(body)
		}()
		return nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	t.Cleanup(hc.CloseIdleConnections)
	c, err = client.Connect(t.Context(), &client.HTTPTransport{URL: resource, Client: hc}, nil)
	browsers.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c, opened, page
}
