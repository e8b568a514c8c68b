package oauth_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
)

// standIn is a loopback server written for one test: an MCP server, an
// authorization server or an internal service an attacker aims at. Its
// routes are what the test sets, and it records every request.
type standIn struct {
	*httptest.Server

	mu     sync.Mutex
	routes map[string]http.HandlerFunc // by "METHOD /path"
	hits   []hit
}

// hit is one request a stand-in received.
type hit struct {
	method, path string
	header       http.Header
	form         url.Values
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{routes: map[string]http.HandlerFunc{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		_ = r.ParseForm()
	}
	s.mu.Lock()
	s.hits = append(s.hits, hit{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), form: r.PostForm})
	h := s.routes[r.Method+" "+r.URL.Path]
	s.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// route sets (or replaces) the handler of "METHOD /path".
func (s *standIn) route(pattern string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[pattern] = h
}

// seen returns the requests received at path ("" for all).
func (s *standIn) seen(path string) []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hit
	for _, h := range s.hits {
		if path == "" || h.path == path {
			out = append(out, h)
		}
	}
	return out
}

// standInAS is an authorization server stand-in whose metadata (RFC 8414)
// is honest but for what extra changes (a nil value removes a member). It
// registers anyone, its token endpoint issues the token "good-token" to
// anyone, and its authorization endpoint approves at once.
func standInAS(t *testing.T, extra map[string]any) *standIn {
	as := newStandIn(t)
	as.metadata(extra)
	as.route("POST /token", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "good-token", "token_type": "Bearer", "expires_in": 3600})
	})
	as.route("POST /register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": "registered", "token_endpoint_auth_method": oauth.AuthNone})
	})
	as.route("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {"a-code"}, "state": {q.Get("state")}, "iss": {as.URL}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	return as
}

// metadata serves the stand-in's authorization server metadata.
func (s *standIn) metadata(extra map[string]any) {
	s.route("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		m := map[string]any{
			"issuer":                                s.URL,
			"authorization_endpoint":                s.URL + "/authorize",
			"token_endpoint":                        s.URL + "/token",
			"registration_endpoint":                 s.URL + "/register",
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{oauth.AuthBasic},
		}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		writeJSON(w, http.StatusOK, m)
	})
}

// standInMCP is a protected MCP server stand-in: a Specter router at /mcp
// for requests bearing "good-token", a 401 naming its resource metadata
// for any other, and that metadata, which names issuer as the
// authorization server.
func standInMCP(t *testing.T, issuer string) *standIn {
	r := specter.NewRouter("protected", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("hello", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("hello")
	}, specter.Description("Says hello"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	s := newStandIn(t)
	s.prm(issuer)
	s.route("POST /mcp", func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer good-token" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.Handler().ServeHTTP(w, req)
	})
	return s
}

// challenge answers every MCP request with a 401 and this challenge.
func (s *standIn) challenge(wwwAuthenticate string) {
	s.route("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", wwwAuthenticate)
		w.WriteHeader(http.StatusUnauthorized)
	})
}

// prm serves the stand-in's protected resource metadata, naming issuer.
func (s *standIn) prm(issuer string) {
	s.route("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL + "/mcp", "authorization_servers": []string{issuer}})
	})
}

// connectThrough connects to the MCP server at mcpURL through an oauth
// Transport for cfg.
func connectThrough(t *testing.T, mcpURL string, cfg oauth.Config) (*client.Client, error) {
	t.Helper()
	tr, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	t.Cleanup(hc.CloseIdleConnections)
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: mcpURL, Client: hc}, nil)
	if err == nil {
		t.Cleanup(func() { _ = c.Close(context.Background()) })
	}
	return c, err
}

// TestGrantBoundToIssuer keeps a grant's credentials from an authorization
// server they were not made for: the MCP server's resource metadata names
// an attacker's, which receives nothing, while the issuer the grant is
// bound to gets them.
func TestGrantBoundToIssuer(t *testing.T) {
	good, evil, idp := standInAS(t, nil), standInAS(t, nil), standInAS(t, nil)
	secret := oauth.Client{ID: "svc", Secret: "s3cret", AuthMethod: oauth.AuthPost}
	for _, tc := range []struct {
		name  string
		grant oauth.Grant
	}{
		{"client credentials without issuers", oauth.ClientCredentials{Client: secret}},
		{"client credentials", oauth.ClientCredentials{Client: secret, Issuers: []string{good.URL}}},
		{"JWT bearer", oauth.JWTBearer{Client: secret, Issuers: []string{good.URL}, Assertion: func(context.Context, string) (string, error) {
			return "workload-jwt", nil
		}}},
		{"enterprise-managed", oauth.EnterpriseManaged{Client: secret, Issuers: []string{good.URL}, IdPTokenEndpoint: idp.URL + "/token", IDToken: func(context.Context) (string, error) {
			return "id-token", nil
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := connectThrough(t, standInMCP(t, evil.URL).URL+"/mcp", oauth.Config{Grant: tc.grant})
			if err == nil || !strings.Contains(err.Error(), evil.URL) {
				t.Fatalf("connect: %v, want a refusal naming %s", err, evil.URL)
			}
			if hits := append(evil.seen("/token"), idp.seen("/token")...); len(hits) != 0 {
				t.Fatalf("%d token requests went out, the first with %v", len(hits), hits[0].form)
			}
		})
	}
	t.Run("the bound issuer", func(t *testing.T) {
		grant := oauth.ClientCredentials{Client: secret, Issuers: []string{good.URL}}
		c, err := connectThrough(t, standInMCP(t, good.URL).URL+"/mcp", oauth.Config{Grant: grant})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(t.Context(), "hello", nil); err != nil {
			t.Fatal(err)
		}
		if hits := good.seen("/token"); len(hits) != 1 || hits[0].form.Get("client_secret") != "s3cret" {
			t.Fatalf("token requests %v", hits)
		}
	})
}

// TestMetadataEndpointSchemes hands the browser opener nothing but https
// (or http on loopback): an authorization server whose metadata names a
// javascript:, file: or data: URL, or plain http elsewhere, for any of its
// endpoints is refused before the opener or any request sees it.
func TestMetadataEndpointSchemes(t *testing.T) {
	bad := []string{
		"javascript:alert(document.domain)//",
		"file:///etc/passwd",
		"data:text/html,<script>alert(1)</script>",
		"vbscript:msgbox(1)",
		"http://as.example/authorize",
		"//127.0.0.1/authorize",
	}
	for _, member := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint"} {
		for _, u := range bad {
			t.Run(member+" "+u, func(t *testing.T) {
				extra := map[string]any{"registration_endpoint": "http://127.0.0.1:1/register"}
				extra[member] = u
				as := standInAS(t, extra)
				var opened []string
				_, err := connectThrough(t, standInMCP(t, as.URL).URL+"/mcp", oauth.Config{
					Clients: map[string]oauth.Client{as.URL: {ID: "app"}},
					Redirect: oauth.RedirectFunc(func(_ context.Context, authURL string) (*url.URL, error) {
						opened = append(opened, authURL)
						return nil, errors.New("the test's opener refuses")
					}),
				})
				if len(opened) != 0 {
					t.Fatalf("the opener was handed %q", opened)
				}
				if err == nil || !strings.Contains(err.Error(), member) {
					t.Fatalf("connect: %v, want a refusal naming %s", err, member)
				}
				for _, h := range as.seen("") {
					if h.path != "/.well-known/oauth-authorization-server" {
						t.Errorf("%s %s reached the authorization server", h.method, h.path)
					}
				}
			})
		}
	}
	t.Run("LoopbackRedirect", func(t *testing.T) {
		for _, u := range bad {
			opened := 0
			l := oauth.LoopbackRedirect{Open: func(string) error { opened++; return nil }}
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // a URL that got through would wait for nothing
			_, err := l.Authorize(ctx, u+"?redirect_uri="+url.QueryEscape("http://127.0.0.1:0/callback"))
			if opened != 0 || err == nil {
				t.Errorf("%s: opened %d times, %v", u, opened, err)
			}
		}
	})
}

// TestPKCEMustBeAdvertised refuses an authorization server whose metadata
// omits code_challenge_methods_supported, or lists no S256, before the
// user is sent anywhere (MCP 2025-11-25: clients MUST refuse to proceed).
func TestPKCEMustBeAdvertised(t *testing.T) {
	for name, methods := range map[string]any{"absent": nil, "plain only": []string{"plain"}, "empty": []string{}} {
		t.Run(name, func(t *testing.T) {
			as := standInAS(t, map[string]any{"code_challenge_methods_supported": methods})
			opened := 0
			_, err := connectThrough(t, standInMCP(t, as.URL).URL+"/mcp", oauth.Config{
				Clients: map[string]oauth.Client{as.URL: {ID: "app"}},
				Redirect: oauth.RedirectFunc(func(context.Context, string) (*url.URL, error) {
					opened++
					return nil, errors.New("the test's opener refuses")
				}),
			})
			if opened != 0 || err == nil || !strings.Contains(err.Error(), "PKCE") {
				t.Fatalf("opened %d times; connect: %v, want a PKCE refusal", opened, err)
			}
		})
	}
}

// TestLoopbackRedirectIgnoresForgedCallbacks hits the loopback listener,
// as any web page (an <img>) or local process can, before the browser
// comes back: callbacks without the flow's state are answered 400 and
// ignored, and the login completes.
func TestLoopbackRedirectIgnoresForgedCallbacks(t *testing.T) {
	forger := &http.Client{}
	t.Cleanup(forger.CloseIdleConnections)
	c, _, _ := loopbackLogin(t, notesServer(t, newTestAS(t)), func(redirect string) {
		for _, forged := range []string{"?error=access_denied", "?code=forged&state=forged", "?code=forged", "?error=access_denied&state="} {
			res, err := forger.Get(redirect + forged)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("forged callback %s: HTTP %d, want 400", forged, res.StatusCode)
			}
		}
	})
	if _, err := c.CallTool(t.Context(), "list", nil); err != nil {
		t.Error(err)
	}
}

// TestDiscoverySSRF keeps discovery on the origins it belongs to, with
// loopback stand-ins for the internal services an attacker aims at: the
// 401's resource_metadata on another origin is refused, a well-known URL
// redirecting elsewhere is not followed, and a public MCP server cannot
// point the client at private or link-local authorization servers.
func TestDiscoverySSRF(t *testing.T) {
	var internal *standIn // a new one for each case
	untouched := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Error("connected")
		}
		if hits := internal.seen(""); len(hits) != 0 {
			t.Fatalf("the internal service received %s %s", hits[0].method, hits[0].path)
		}
	}
	t.Run("cross-origin resource_metadata", func(t *testing.T) {
		internal = internalService(t)
		mcp := standInMCP(t, internal.URL)
		mcp.challenge(`Bearer resource_metadata="` + internal.URL + `/prm"`)
		_, err := connectThrough(t, mcp.URL+"/mcp", oauth.Config{Clients: map[string]oauth.Client{internal.URL: {ID: "app"}}})
		untouched(t, err)
	})
	t.Run("well-known redirect", func(t *testing.T) {
		internal = internalService(t)
		mcp := standInMCP(t, internal.URL)
		mcp.challenge("Bearer")
		mcp.route("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, internal.URL+"/prm", http.StatusFound)
		})
		_, err := connectThrough(t, mcp.URL+"/mcp", oauth.Config{Clients: map[string]oauth.Client{internal.URL: {ID: "app"}}})
		untouched(t, err)
	})
	t.Run("authorization server metadata redirect", func(t *testing.T) {
		internal = internalService(t)
		as := standInAS(t, nil)
		as.route("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, internal.URL+"/.well-known/oauth-authorization-server", http.StatusTemporaryRedirect)
		})
		_, err := connectThrough(t, standInMCP(t, as.URL).URL+"/mcp", oauth.Config{Clients: map[string]oauth.Client{as.URL: {ID: "app"}}})
		untouched(t, err)
	})
	for _, target := range []string{"https://169.254.169.254", "https://10.0.0.8", "https://[fd00::8]", "https://127.0.0.1"} {
		t.Run("public server, authorization server "+target, func(t *testing.T) {
			net := publicNet(t, target)
			_, err := net.connect(t, oauth.Config{Grant: oauth.ClientCredentials{Issuers: []string{oauth.AnyIssuer}}})
			if err == nil || !strings.Contains(err.Error(), "public") {
				t.Errorf("connect: %v, want a refusal", err)
			}
			if dials := net.dialed(); len(dials) != 1 {
				t.Errorf("dialed %v, want the MCP server alone", dials)
			}
		})
	}

	// The options: other origins for resource metadata, and a policy of
	// one's own for authorization servers.
	t.Run("AllowCrossOriginMetadata", func(t *testing.T) {
		internal = internalService(t)
		mcp := standInMCP(t, internal.URL)
		mcp.challenge(`Bearer resource_metadata="` + internal.URL + `/prm"`)
		_, err := connectThrough(t, mcp.URL+"/mcp", oauth.Config{AllowCrossOriginMetadata: true})
		if hits := internal.seen("/prm"); len(hits) == 0 || err == nil || !strings.Contains(err.Error(), `is for anything`) {
			t.Errorf("%d requests for the metadata; connect: %v, want it read and its resource refused", len(hits), err)
		}
	})
	t.Run("CheckServer allows", func(t *testing.T) {
		net := publicNet(t, "https://10.0.0.8")
		var asked []string
		_, err := net.connect(t, oauth.Config{
			Grant: oauth.ClientCredentials{Issuers: []string{"https://10.0.0.8"}},
			CheckServer: func(_ context.Context, mcpServer, target *url.URL) error {
				asked = append(asked, mcpServer.Host+" "+target.String())
				return nil
			},
		})
		if want := []string{"203.0.113.10 https://10.0.0.8", "203.0.113.10 https://10.0.0.8/token"}; !slices.Equal(asked[:min(2, len(asked))], want) {
			t.Errorf("asked about %v, want %v first", asked, want)
		}
		if dials := net.dialed(); !slices.Contains(dials, "10.0.0.8:443") {
			t.Errorf("dialed %v; connect: %v", dials, err)
		}
	})
	t.Run("CheckServer refuses", func(t *testing.T) {
		as := standInAS(t, nil)
		refused := errors.New("not this one")
		_, err := connectThrough(t, standInMCP(t, as.URL).URL+"/mcp", oauth.Config{
			Clients:     map[string]oauth.Client{as.URL: {ID: "app"}},
			CheckServer: func(context.Context, *url.URL, *url.URL) error { return refused },
		})
		if !errors.Is(err, refused) || len(as.seen("")) != 0 {
			t.Errorf("connect: %v, with %d requests to the authorization server", err, len(as.seen("")))
		}
	})
}

// internalService stands in for a service inside the network, which
// answers with resource and authorization server metadata of its own.
func internalService(t *testing.T) *standIn {
	s := newStandIn(t)
	s.route("GET /prm", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": "anything", "authorization_servers": []string{s.URL}})
	})
	s.metadata(nil)
	return s
}

// publicNet stands in for the internet on loopback: an MCP server at the
// public address 203.0.113.10 whose resource metadata names the
// authorization server issuer, itself a TLS stand-in wherever it claims
// to be. Its transport dials every address to one of the two, and
// records what it dialed.
type publicNetwork struct {
	mcp, as   *httptest.Server
	transport *http.Transport

	mu    sync.Mutex
	dials []string
}

const publicMCP = "http://203.0.113.10/mcp"

func publicNet(t *testing.T, issuer string) *publicNetwork {
	n := &publicNetwork{}
	mcp := http.NewServeMux()
	mcp.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://203.0.113.10/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mcp.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": publicMCP, "authorization_servers": []string{issuer}})
	})
	n.mcp = httptest.NewServer(mcp)
	t.Cleanup(n.mcp.Close)
	n.as = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"issuer": issuer, "token_endpoint": issuer + "/token", "access_token": "good-token", "token_type": "Bearer"})
	}))
	t.Cleanup(n.as.Close)
	var d net.Dialer
	n.transport = &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the stand-in's certificate names loopback only
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			n.mu.Lock()
			n.dials = append(n.dials, addr)
			n.mu.Unlock()
			to := n.as.Listener.Addr().String()
			if addr == "203.0.113.10:80" {
				to = n.mcp.Listener.Addr().String()
			}
			return d.DialContext(ctx, network, to)
		},
	}
	t.Cleanup(n.transport.CloseIdleConnections)
	return n
}

func (n *publicNetwork) connect(t *testing.T, cfg oauth.Config) (*client.Client, error) {
	cfg.HTTPClient = &http.Client{Transport: n.transport}
	tr, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Base = n.transport
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: publicMCP, Client: &http.Client{Transport: tr}}, nil)
	if err == nil {
		t.Cleanup(func() { _ = c.Close(context.Background()) })
	}
	return c, err
}

func (n *publicNetwork) dialed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(n.dials)))
}

// TestRequestTimeouts bounds the client's own requests to an authorization
// server that never answers: its metadata, the registration or the token
// request each fail with a timeout instead of holding the MCP request
// forever.
func TestRequestTimeouts(t *testing.T) {
	for _, route := range []string{"GET /.well-known/oauth-authorization-server", "POST /register", "POST /token"} {
		t.Run(route, func(t *testing.T) {
			as := standInAS(t, nil)
			ended := make(chan struct{}) // by the test, should the client never give up
			t.Cleanup(func() { close(ended) })
			as.route(route, func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-ended:
				}
			})
			err := returns(t, func() error {
				_, err := connectThrough(t, standInMCP(t, as.URL).URL+"/mcp", oauth.Config{
					Timeout:  50 * time.Millisecond,
					Redirect: oauth.FollowRedirect{},
				})
				return err
			})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("connect: %v, want a timeout", err)
			}
		})
	}
	for _, tc := range []struct {
		cfg  oauth.Config
		want time.Duration
	}{
		{oauth.Config{}, 30 * time.Second},
		{oauth.Config{Timeout: time.Minute}, time.Minute},
		{oauth.Config{HTTPClient: &http.Client{Timeout: time.Second}}, time.Second},
	} {
		tr, err := oauth.New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := oauth.RequestTimeout(tr); got != tc.want {
			t.Errorf("%+v: timeout %v, want %v", tc.cfg, got, tc.want)
		}
	}
}

// returns runs f and returns what it returns, failing the test when f has
// not returned within a minute: a hang detector, not a timing check.
func returns[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(time.Minute):
		t.Fatal("still waiting after a minute")
		panic("unreachable")
	}
}

// TestFailedRefreshIsAnError refuses to send a token past its expiry when
// its refresh fails: the error reaches the caller, the MCP server never
// sees the expired token, and the next request authorizes afresh.
func TestFailedRefreshIsAnError(t *testing.T) {
	as := standInAS(t, nil)
	var codes atomic.Int32
	as.route("POST /token", func(w http.ResponseWriter, r *http.Request) {
		switch r.PostFormValue("grant_type") {
		case "refresh_token":
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "the refresh token was revoked"})
		case "authorization_code":
			if codes.Add(1) == 1 {
				writeJSON(w, http.StatusOK, map[string]any{"access_token": "expiring", "token_type": "Bearer", "expires_in": 1, "refresh_token": "revoked"})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"access_token": "good-token", "token_type": "Bearer", "expires_in": 3600})
		}
	})
	mcp := standInMCP(t, as.URL)
	tr, err := oauth.New(oauth.Config{Clients: map[string]oauth.Client{as.URL: {ID: "app"}}, Redirect: oauth.FollowRedirect{}})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	t.Cleanup(hc.CloseIdleConnections)
	// Pinned, so that no fallback to initialize tries again.
	_, err = client.Connect(t.Context(), &client.HTTPTransport{URL: mcp.URL + "/mcp", Client: hc}, &client.Options{Version: "2026-07-28"})
	var te *oauth.TokenError
	if !errors.As(err, &te) || te.Code != "invalid_grant" || !strings.Contains(err.Error(), "refresh") {
		t.Errorf("connect: %v, want the failed refresh", err)
	}
	for _, h := range mcp.seen("/mcp") {
		if h.header.Get("Authorization") == "Bearer expiring" {
			t.Fatal("the MCP server was sent the expired token")
		}
	}
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: mcp.URL + "/mcp", Client: hc}, nil)
	if err != nil {
		t.Fatalf("connecting again: %v", err)
	}
	_ = c.Close(context.Background())
	if n := codes.Load(); n != 2 {
		t.Errorf("%d authorizations, want 2", n)
	}
}
