package oauth_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/mcp"
)

// TestFileStore keeps tokens per issuer and resource and registrations
// per issuer, in a file only its owner may read, and refuses a file
// others may read.
func TestFileStore(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "tool", "auth.json")
	s := oauth.NewFileStore(path)
	if tok, err := s.LoadToken(ctx, "https://as", "https://mcp"); tok != nil || err != nil {
		t.Fatalf("an empty store: %+v %v", tok, err)
	}
	expiry := time.Now().Add(time.Hour).Round(time.Second)
	if err := s.SaveToken(ctx, "https://as", "https://mcp", &oauth.Token{AccessToken: "a", RefreshToken: "r", TokenType: "Bearer", Scope: "x y", Expiry: expiry}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveClient(ctx, "https://as", &oauth.Client{ID: "id", Secret: "secret", AuthMethod: oauth.AuthBasic}); err != nil {
		t.Fatal(err)
	}
	again := oauth.NewFileStore(path) // as the next run of the tool
	tok, err := again.LoadToken(ctx, "https://as", "https://mcp")
	if err != nil || tok == nil || tok.AccessToken != "a" || tok.RefreshToken != "r" || tok.Scope != "x y" || !tok.Expiry.Equal(expiry) {
		t.Errorf("token %+v %v", tok, err)
	}
	for _, key := range [][2]string{{"https://other-as", "https://mcp"}, {"https://as", "https://other-mcp"}} {
		if tok, err := again.LoadToken(ctx, key[0], key[1]); tok != nil || err != nil {
			t.Errorf("the token of https://as for https://mcp is offered to %v: %+v %v", key, tok, err)
		}
	}
	c, err := again.LoadClient(ctx, "https://as")
	if err != nil || c == nil || c.ID != "id" || c.Secret != "secret" || c.AuthMethod != oauth.AuthBasic {
		t.Errorf("client %+v %v", c, err)
	}
	if c, err := again.LoadClient(ctx, "https://other-as"); c != nil || err != nil {
		t.Errorf("a registration offered to another issuer: %+v %v", c, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for name, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, fi.Mode().Perm(), err, want)
		}
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := again.LoadToken(ctx, "https://as", "https://mcp"); err == nil {
		t.Error("a token store that others may read was used")
	}
}

// TestStoredGrant: a Transport with a Store authorizes once; the next
// one, as the next run of a command-line tool, uses the stored token and
// registration, refreshes the token once it has expired, and authorizes
// anew when the server refuses it.
func TestStoredGrant(t *testing.T) {
	as := newTestAS(t)
	as.firstExpiresIn = 3600
	resource := notesServer(t, as)
	store := oauth.NewFileStore(filepath.Join(t.TempDir(), "auth.json"))
	run := func() {
		t.Helper()
		tr, err := oauth.New(oauth.Config{Redirect: oauth.FollowRedirect{}, OfflineAccess: true, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: tr}
		defer hc.CloseIdleConnections()
		c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: resource, Client: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		res, err := c.CallTool(t.Context(), "list", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != "list by ada" {
			t.Fatalf("list: %q", got)
		}
	}
	counts := func() (authorizations, registrations, refreshes int) {
		as.mu.Lock()
		defer as.mu.Unlock()
		return len(as.granted), len(as.clients), as.refreshs
	}
	check := func(what string, authorizations, registrations, refreshes int) {
		t.Helper()
		a, r, f := counts()
		if a != authorizations || r != registrations || f != refreshes {
			t.Errorf("%s: %d authorizations, %d registrations, %d refreshes; want %d, %d, %d", what, a, r, f, authorizations, registrations, refreshes)
		}
	}
	run()
	check("the first run", 1, 1, 0)
	run()
	check("a run with the stored token", 1, 1, 0)

	issuer := as.srv.URL
	edit := func(f func(*oauth.Token)) {
		t.Helper()
		tok, err := store.LoadToken(t.Context(), issuer, resource)
		if err != nil || tok == nil {
			t.Fatalf("stored token: %+v %v", tok, err)
		}
		f(tok)
		if err := store.SaveToken(t.Context(), issuer, resource, tok); err != nil {
			t.Fatal(err)
		}
	}
	edit(func(tok *oauth.Token) { tok.Expiry = time.Now().Add(-time.Minute) })
	run()
	check("a run with an expired token", 1, 1, 1)
	edit(func(tok *oauth.Token) { tok.AccessToken, tok.RefreshToken = "revoked", "" })
	run()
	check("a run with a refused token", 2, 1, 1)
}
