package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/auth"
)

// testSecret is the demo issuer's secret in the tests.
var testSecret = []byte("a test secret of at least 32 bytes")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startApp serves a new application until the test ends, then shuts the
// router down (ending sessions and their streams) and the server.
func startApp(t *testing.T) *httptest.Server { return startAppWith(t, nil) }

// startAppWith is startApp with the configuration changed by edit.
func startAppWith(t *testing.T, edit func(*config)) *httptest.Server {
	t.Helper()
	return startAppOn(t, edit, nil)
}

// startAppOn is startAppWith with more routes on the app's Echo, added
// by mount before it serves.
func startAppOn(t *testing.T, edit func(*config), mount func(*echo.Echo)) *httptest.Server {
	t.Helper()
	// The tokens' audience is the server's URL, so the listener comes
	// first.
	srv := httptest.NewUnstartedServer(nil)
	cfg := config{
		URL:    "http://" + srv.Listener.Addr().String() + mcpPath,
		Secret: testSecret,
		Log:    zerolog.New(zerolog.NewTestWriter(t)),
	}
	if edit != nil {
		edit(&cfg)
	}
	e, r, err := newApp(cfg)
	if err != nil {
		srv.Close()
		t.Fatalf("newApp: %v", err)
	}
	if mount != nil {
		mount(e)
	}
	srv.Config.Handler = e
	srv.Start()
	// Cleanups run last first: the router ends its sessions and streams,
	// then the server closes, with the client's idle connections.
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.Shutdown(ctx); err != nil {
			t.Errorf("router shutdown: %v", err)
		}
	})
	return srv
}

// mint returns a token the demo issuer of srv signs for u with scopes,
// valid for an hour.
func mint(t *testing.T, srv *httptest.Server, u user, scopes []string) string {
	t.Helper()
	return tokenFor(newIssuer(testSecret, srv.URL+mcpPath), u, scopes)
}

func TestInitializeInstructionsNameThePlan(t *testing.T) {
	srv := startApp(t)
	for _, tc := range []struct {
		u    user
		want string
	}{{basicUser, "basic plan"}, {ultraUser, "ultra plan"}} {
		var res struct {
			Instructions string `json:"instructions"`
		}
		if err := json.Unmarshal(newClient(t, srv, tc.u).initialize(nil), &res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Instructions, tc.want) || !strings.Contains(res.Instructions, tc.u.Name) {
			t.Errorf("instructions %q do not mention %q and %q", res.Instructions, tc.want, tc.u.Name)
		}
	}
}

func TestBannerPrintsTheURLAndWorkingTokens(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	defer srv.Close()
	cfg := config{URL: "http://" + srv.Listener.Addr().String() + mcpPath, Secret: testSecret}
	var out bytes.Buffer
	if err := printBanner(&out, cfg, true); err != nil {
		t.Fatal(err)
	}
	banner := out.String()
	for _, want := range []string{
		"MCP endpoint   " + cfg.URL,
		"metadata       " + strings.TrimSuffix(cfg.URL, mcpPath) + "/.well-known/oauth-protected-resource/mcp",
		"SPECTER_JWT_SECRET=" + string(testSecret),
		"long_task needs jobs:run",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner lacks %q:\n%s", want, banner)
		}
	}
	tokens := regexp.MustCompile(`(?m)^  (eyJ[\w-]+\.[\w-]+\.[\w-]+)$`).FindAllStringSubmatch(banner, -1)
	if len(tokens) != 2 {
		t.Fatalf("the banner shows %d tokens, want 2:\n%s", len(tokens), banner)
	}
	ver, err := auth.NewVerifier(newIssuer(testSecret, cfg.URL).Config())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []user{basicUser, ultraUser} {
		claims, err := ver.Verify(context.Background(), tokens[i][1])
		if err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
		got, err := userFrom(claims)
		if err != nil || got != want {
			t.Errorf("token %d is for %+v (%v), want %+v", i, got, err, want)
		}
		if ttl := time.Until(claims.ExpiresAt); ttl < tokenTTL-time.Minute || ttl > tokenTTL {
			t.Errorf("token %d expires in %v, want %v", i, ttl, tokenTTL)
		}
	}
	if !strings.Contains(banner, "-H 'Authorization: Bearer "+tokens[0][1]+"'") {
		t.Errorf("the curl command does not use the basic token:\n%s", banner)
	}

	// A secret from the environment is not printed.
	out.Reset()
	if err := printBanner(&out, cfg, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), string(testSecret)) {
		t.Errorf("the banner prints a secret from the environment:\n%s", out.String())
	}
}

func TestLoadSecret(t *testing.T) {
	a, random, err := loadSecret("")
	if err != nil || !random || len(a) != 2*minSecretBytes {
		t.Fatalf("unset: %q %v %v, want %d random hex characters", a, random, err, 2*minSecretBytes)
	}
	if _, err := hex.DecodeString(string(a)); err != nil {
		t.Errorf("the random secret %q is not hex", a)
	}
	if b, _, _ := loadSecret(""); bytes.Equal(a, b) {
		t.Error("two random secrets are equal")
	}
	given := strings.Repeat("s", minSecretBytes)
	if s, random, err := loadSecret(given); err != nil || random || string(s) != given {
		t.Errorf("set: %q %v %v, want it as given", s, random, err)
	}
	if _, _, err := loadSecret("short"); err == nil || !strings.Contains(err.Error(), "SPECTER_JWT_SECRET") {
		t.Errorf("a 5-byte secret: %v, want an error naming SPECTER_JWT_SECRET", err)
	}
}

func TestNewAppRefusesPlainHTTPOffLoopback(t *testing.T) {
	_, _, err := newApp(config{URL: "http://192.0.2.7:8080" + mcpPath, Secret: testSecret, Log: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("newApp on a public http URL: %v, want an error asking for https", err)
	}
}

// TestServerTimeouts: the app bounds slow and idle clients the way a
// production server must, without the plain read and write timeouts that
// would cut event streams.
func TestServerTimeouts(t *testing.T) {
	e, r, err := newApp(config{URL: "http://127.0.0.1:8080" + mcpPath, Secret: testSecret, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Shutdown(t.Context())
	s := e.Server
	if s.ReadHeaderTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes <= 0 {
		t.Errorf("ReadHeaderTimeout %v, IdleTimeout %v, MaxHeaderBytes %d; want all set", s.ReadHeaderTimeout, s.IdleTimeout, s.MaxHeaderBytes)
	}
	if s.ReadTimeout != 0 || s.WriteTimeout != 0 {
		t.Errorf("ReadTimeout %v, WriteTimeout %v; want none, they cut event streams", s.ReadTimeout, s.WriteTimeout)
	}
}

// TestBannerCurlCommandsWork sends every curl command the banner prints,
// as a person would paste it, to a running app.
func TestBannerCurlCommandsWork(t *testing.T) {
	var banner bytes.Buffer
	var url string
	startAppWith(t, func(cfg *config) {
		url = cfg.URL
		if err := printBanner(&banner, *cfg, false); err != nil {
			t.Fatal(err)
		}
	})
	cmds := regexp.MustCompile(`(?s)curl -i (\S+) \\\n(.*?)\n\n`).FindAllStringSubmatch(banner.String(), -1)
	if len(cmds) != 2 {
		t.Fatalf("the banner shows %d curl commands, want 2 (a session and 2026-07-28):\n%s", len(cmds), banner.String())
	}
	for i, cmd := range cmds {
		if cmd[1] != url {
			t.Fatalf("command %d posts to %s, want %s", i, cmd[1], url)
		}
		var body string
		hdr := http.Header{}
		for _, arg := range regexp.MustCompile(`-(H|d) '([^']*)'`).FindAllStringSubmatch(cmd[2], -1) {
			if arg[1] == "d" {
				body = arg[2]
				continue
			}
			k, v, _ := strings.Cut(arg[2], ": ")
			hdr.Add(k, v)
		}
		req, err := http.NewRequest(http.MethodPost, cmd[1], strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = hdr
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte(`"result"`)) {
			t.Fatalf("command %d: %d %s", i, resp.StatusCode, got)
		}
		if i == 1 && !bytes.Contains(got, []byte(`"name":"whoami"`)) {
			t.Fatalf("the 2026-07-28 command does not list the tools: %s", got)
		}
	}
}
