package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
)

// testBrowserEnv, set, makes the test binary a browser that follows the
// authorization URL it is given to the redirect (the login's consent
// given at once).
const testBrowserEnv = "SPECTER_CLI_TEST_BROWSER"

func runTestBrowser() int {
	res, err := http.Get(os.Args[len(os.Args)-1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "test browser:", err)
		return 1
	}
	res.Body.Close()
	return 0
}

// loginAS is an OAuth authorization server that registers clients
// dynamically and authorizes every request at once (PKCE checked).
type loginAS struct {
	srv *httptest.Server
	dev *auth.DevIssuer

	mu             sync.Mutex
	codes          map[string]string // code → code_challenge
	authorizations int
}

func newLoginAS(t *testing.T) *loginAS {
	as := &loginAS{codes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		u := as.srv.URL
		writeTestJSON(w, http.StatusOK, map[string]any{
			"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"registration_endpoint": u + "/register", "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported":          []string{"none"},
			"authorization_response_iss_parameter_supported": true,
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		writeTestJSON(w, http.StatusCreated, map[string]any{"client_id": "specter-cli", "token_endpoint_auth_method": "none", "redirect_uris": req.RedirectURIs})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		as.mu.Lock()
		as.authorizations++
		code := fmt.Sprintf("code-%d", as.authorizations)
		as.codes[code] = q.Get("code_challenge")
		as.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.srv.URL}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		challenge, ok := as.codes[r.PostFormValue("code")]
		delete(as.codes, r.PostFormValue("code"))
		as.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		writeTestJSON(w, http.StatusOK, map[string]any{"access_token": as.dev.Token("ada"), "token_type": "Bearer", "expires_in": 3600})
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func writeTestJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedServer is a Specter router behind auth.JWT accepting the
// tokens of as.
func protectedServer(t *testing.T, as *loginAS) string {
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().String() + "/mcp"
	as.dev = &auth.DevIssuer{Secret: []byte("a secret of at least thirty-two bytes"), Issuer: as.srv.URL, Resource: resource}
	cfg := as.dev.Config()
	r := specter.NewRouter("protected", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("whoami", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply("you are " + c.Principal())
	}, specter.Description("Who the token says you are"))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	auth.MountMetadata(e, cfg)
	r.Mount(e.Group("/mcp", auth.JWT(cfg)))
	srv.Config.Handler = e
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.Close()
	})
	return resource
}

// TestLoginOn401 runs inspect and call against a server that answers
// 401: the command logs in through the browser ($BROWSER, here a test
// browser that consents at once) with the project's OAuth client, caches
// the token in the user's configuration directory, and the next run uses
// it without logging in again.
func TestLoginOn401(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	as := newLoginAS(t)
	mcpURL := protectedServer(t, as)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "BROWSER="+self, testBrowserEnv+"=1",
		"SPECTER_CALLBACK_PORT="+freePort(t))

	r := runIn(t, env, "inspect", "--url", mcpURL)
	if r.code != 0 || !strings.Contains(r.stdout, "whoami") || !strings.Contains(r.stderr, "Opening your browser") {
		t.Fatalf("inspect exited %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "config", "specter", "oauth.json")); err != nil {
		t.Errorf("no token cache: %v", err)
	}
	r = runIn(t, env, "call", "whoami", "--url", mcpURL)
	if r.code != 0 || !strings.Contains(r.stdout, "you are ada") || strings.Contains(r.stderr, "Opening your browser") {
		t.Errorf("call exited %d; stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	as.mu.Lock()
	n := as.authorizations
	as.mu.Unlock()
	if n != 1 {
		t.Errorf("%d authorizations, want 1: the second run should use the cached token", n)
	}

	// --no-login fails on the 401 instead.
	r = runIn(t, append(env[:len(env):len(env)], "XDG_CONFIG_HOME="+t.TempDir()), "inspect", "--no-login", "--url", mcpURL)
	if r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Errorf("inspect --no-login exited %d: %s", r.code, r.stderr)
	}
}

// freePort is a loopback port nothing listens on, so that tests running
// beside this one never meet on the command's fixed callback port.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
