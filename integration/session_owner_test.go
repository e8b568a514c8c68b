package integration

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
)

// touchCounter is a backplane that counts the refreshes of session
// records. It is not *backplane.Memory, so the router treats it as
// shared between nodes.
type touchCounter struct {
	backplane.Backplane
	touches atomic.Int32
}

func (b *touchCounter) TouchSession(ctx context.Context, id string, ttl time.Duration) error {
	b.touches.Add(1)
	return b.Backplane.TouchSession(ctx, id, ttl)
}

// ownerServer serves a router whose callers are named by X-User.
func ownerServer(t *testing.T, bp backplane.Backplane) string {
	r := specter.NewRouter("owners", "1.0.0", quiet, specter.Backplane(bp))
	r.Connect(func(c *specter.Context) error {
		c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
		return nil
	})
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return srv.URL
}

// ownerRequest sends a request as user on session sid and returns the
// status, the session id the answer names and the body.
func ownerRequest(t *testing.T, url, method, user, sid, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx(t), method, url, strings.NewReader(body))
	req.Header.Set("X-User", user)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
}

// Another principal's session id must tell its caller nothing an unknown
// id does not, and must not keep the session alive.
func TestForeignSessionIsUnknown(t *testing.T) {
	bp := &touchCounter{Backplane: backplane.NewMemory()}
	url := ownerServer(t, bp)
	_, sid, _ := ownerRequest(t, url, http.MethodPost, "alice", "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if sid == "" {
		t.Fatal("initialize gave no session id")
	}
	const unknown = "AAAAAAAAAAAAAAAAAAAAAA" // the shape of an id, issued to nobody
	before := bp.touches.Load()
	for _, tc := range []struct{ method, body string }{
		{http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{http.MethodGet, ""},
		{http.MethodDelete, ""},
	} {
		fs, _, fb := ownerRequest(t, url, tc.method, "mallory", sid, tc.body)
		us, _, ub := ownerRequest(t, url, tc.method, "mallory", unknown, tc.body)
		if fs != http.StatusNotFound || fs != us || fb != ub {
			t.Errorf("%s: foreign session %d %s; unknown session %d %s", tc.method, fs, fb, us, ub)
		}
	}
	if n := bp.touches.Load() - before; n != 0 {
		t.Errorf("a stranger's requests refreshed the session %d times", n)
	}
	if status, _, body := ownerRequest(t, url, http.MethodPost, "alice", sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != http.StatusOK {
		t.Errorf("the owner lost its session: %d %s", status, body)
	}
}
