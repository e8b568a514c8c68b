package integration

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
)

// A session with an open GET stream is in use: its shared record must
// not expire under it however long the stream stays open (issue 9 item
// 13), on either backplane.
func TestBusySessionOutlivesItsTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name  string
		nodes func(t *testing.T) []*node
	}{
		{"memory", func(t *testing.T) []*node {
			r := fixture.New(quiet, specter.SessionTimeout(timeout))
			srv := httptest.NewServer(r.Handler())
			t.Cleanup(func() {
				_ = r.Shutdown(ctx(t))
				srv.CloseClientConnections()
				srv.Close()
			})
			return []*node{{r: r, srv: srv, url: srv.URL}}
		}},
		{"redis", func(t *testing.T) []*node {
			return newCluster(t, redistest.Start(t).URL, 1, nil, specter.SessionTimeout(timeout))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := join(t, tc.nodes(t)[0])
			s, err := c.Listen(ctx(t), "")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			time.Sleep(5 * timeout) // idle on POST, busy on the GET stream
			resp, err := c.Call(ctx(t), "ping", nil)
			if err != nil || resp.Status != http.StatusOK {
				t.Fatalf("POST after %v with a GET stream open: %+v %v, want 200", 5*timeout, resp, err)
			}
		})
	}
}
