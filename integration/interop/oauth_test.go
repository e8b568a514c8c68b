package interop

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
)

// redirectURL is where the authorization server sends the user back; the
// test's user agent stops there.
const redirectURL = "http://127.0.0.1/callback"

// protected is a Specter server on loopback whose tokens come from the
// authorization server issuer, with its "whoami" tool.
func protected(t *testing.T, issuer string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().String() + "/mcp"
	nop := zerolog.Nop()
	cfg := auth.Config{
		Resource:   resource,
		Issuer:     issuer,
		JWKSURL:    issuer + "/jwks",
		Algorithms: []string{"RS256"},
		Scopes:     []string{"mcp"},
		Logger:     &nop,
		Context:    t.Context(),
	}
	r := specter.NewRouter("protected", "1.0.0", specter.Logger(nop))
	r.Tool("whoami", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply(c.Principal())
	}, specter.Description("Says who calls"))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	auth.MountMetadata(e, cfg)
	r.Mount(e.Group("/mcp", auth.JWT(cfg)))
	srv.Config.Handler = e
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return resource
}

// user is the user agent: it follows the authorization server's
// redirects, with its cookies, until it is sent back to the client, and
// counts the authorizations.
type user struct {
	hc    *http.Client
	count atomic.Int32
}

func newUser(t *testing.T) *user {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &user{hc: &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}}
}

func (u *user) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	u.count.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	res, err := u.hc.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	return res.Location()
}

// TestOIDCOfflineAccess: with OfflineAccess, a standard OpenID provider
// (node-oidc-provider) issues a refresh token: it keeps offline_access
// only when the request asks for consent (prompt=consent), as OpenID
// Connect Core §11 has it.
func TestOIDCOfflineAccess(t *testing.T) {
	c := ctx(t)
	as := serve(t, nil, ours, "oidc")
	issuer := "http://127.0.0.1:" + as.Port
	resource := protected(t, issuer)
	u := newUser(t)
	tr, err := oauth.New(oauth.Config{Redirect: u, RedirectURL: redirectURL, OfflineAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	cl := connect(t, &client.HTTPTransport{URL: resource, Client: &http.Client{Transport: tr}}, nil)
	if got := textOf(t)(cl.CallTool(c, "whoami", nil)); got != "alice" {
		t.Errorf("whoami: %q", got)
	}
	if tok := tr.Token(resource); tok == nil || tok.RefreshToken == "" || u.count.Load() != 1 {
		t.Errorf("after %d authorizations: no refresh token", u.count.Load())
	}
}

// counting counts the client registrations an HTTP client makes.
type counting struct{ registrations atomic.Int32 }

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/reg") {
		c.registrations.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestTokenStore: a command-line tool keeps its token and registration
// in a FileStore. The next run uses them without asking the user or
// registering again, and once the token has expired it is refreshed with
// node-oidc-provider's refresh token.
func TestTokenStore(t *testing.T) {
	c := ctx(t)
	as := serve(t, nil, ours, "oidc")
	issuer := "http://127.0.0.1:" + as.Port
	resource := protected(t, issuer)
	store := oauth.NewFileStore(filepath.Join(t.TempDir(), "tool", "auth.json"))
	reg := &counting{}
	u := newUser(t)
	run := func() string {
		t.Helper()
		tr, err := oauth.New(oauth.Config{Redirect: u, RedirectURL: redirectURL, OfflineAccess: true, Store: store, HTTPClient: &http.Client{Transport: reg}})
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: tr}
		defer hc.CloseIdleConnections()
		cl, err := client.Connect(c, &client.HTTPTransport{URL: resource, Client: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close(context.Background())
		if got := textOf(t)(cl.CallTool(c, "whoami", nil)); got != "alice" {
			t.Errorf("whoami: %q", got)
		}
		return tr.Token(resource).AccessToken
	}
	first := run()
	if second := run(); second != first || u.count.Load() != 1 || reg.registrations.Load() != 1 {
		t.Errorf("the second run: same token %v, %d authorizations, %d registrations", second == first, u.count.Load(), reg.registrations.Load())
	}
	tok, err := store.LoadToken(c, issuer, resource)
	if err != nil || tok == nil || tok.RefreshToken == "" {
		t.Fatalf("the stored token: refresh token %v, %v", tok != nil && tok.RefreshToken != "", err)
	}
	tok.Expiry = time.Now().Add(-time.Minute)
	if err := store.SaveToken(c, issuer, resource, tok); err != nil {
		t.Fatal(err)
	}
	if third := run(); third == first || u.count.Load() != 1 || reg.registrations.Load() != 1 {
		t.Errorf("the run after the expiry: a new token %v, %d authorizations, %d registrations", third != first, u.count.Load(), reg.registrations.Load())
	}
}
