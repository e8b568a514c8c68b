package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcptest"
)

// partitioned is a node's backplane that, once cut, no longer renews
// the node's lease nor looks for others': to the other nodes the node is
// dead, while its work still runs here.
type partitioned struct {
	*redisbp.Backplane
	cut      atomic.Bool
	recorded chan struct{} // gets a value when work was recorded
}

func (p *partitioned) Heartbeat(ctx context.Context, node string, ttl time.Duration, work []string) error {
	if p.cut.Load() {
		return context.DeadlineExceeded
	}
	err := p.Backplane.Heartbeat(ctx, node, ttl, work)
	if err == nil && len(work) > 0 {
		select {
		case p.recorded <- struct{}{}:
		default:
		}
	}
	return err
}

func (p *partitioned) TakeOver(ctx context.Context, hold time.Duration) (string, []string, error) {
	if p.cut.Load() {
		return "", nil, nil
	}
	return p.Backplane.TakeOver(ctx, hold)
}

// TestNodeDownHook: when a node's lease lapses, another node ends its
// request with an error that a client resuming there receives, and the
// application there hears of it in OnNodeDown, with the reason, the
// session and the request id.
func TestNodeDownHook(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to lapse; skipped with -short")
	}
	redis := redistest.Start(t)
	downs := make(chan specter.NodeDown, 1)
	serve := func(bp *redisbp.Backplane, cut *partitioned) (*specter.Router, *httptest.Server) {
		opts := []specter.RouterOption{quiet, specter.StateKey([]byte("down")), specter.Backplane(bp),
			specter.OnNodeDown(func(d specter.NodeDown) { downs <- d })}
		if cut != nil {
			opts[2] = specter.Backplane(cut)
		}
		r := fixture.New(opts...)
		r.Tool("hold", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				_ = s.Progress(1, 2, "holding") // the answer becomes a stream
				<-s.Done()
				return specter.Reply("ended")
			})
		}, specter.Description("Runs until its session ends"))
		srv := httptest.NewServer(r.Handler())
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.CloseClientConnections()
			_ = r.Shutdown(c)
			srv.Close()
			_ = bp.Close()
		})
		return r, srv
	}
	newBP := func() *redisbp.Backplane {
		bp, err := redisbp.New(context.Background(), redis.URL, redisbp.Prefix("down"))
		if err != nil {
			t.Fatal(err)
		}
		return bp
	}
	a := &partitioned{Backplane: newBP(), recorded: make(chan struct{}, 1)}
	_, srvA := serve(a.Backplane, a)
	_, srvB := serve(newBP(), nil)

	c := mcptest.NewClient(srvA.URL)
	c.HTTP = srvA.Client()
	if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{},"_meta":{"progressToken":1}}}`
	req, _ := c.NewRequest(ctx(t), http.MethodPost, []byte(body))
	hr, err := srvA.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for r := mcptest.NewEventReader(hr.Body); last == ""; {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("no event id before the stream ended: %v", err)
		}
		last = ev.ID
	}
	hr.Body.Close() // the client leaves, to resume elsewhere
	select {
	case <-a.recorded: // A recorded the call as its work
	case <-ctx(t).Done():
		t.Fatal("the call was not recorded as the node's work")
	}
	a.cut.Store(true) // A looks dead to B from now

	var d specter.NodeDown
	select {
	case d = <-downs:
	case <-ctx(t).Done():
		t.Fatal("nobody took over the node whose lease lapsed")
	}
	if d.Reason != specter.EndDown || len(d.Requests) != 1 || d.Requests[0].Session != c.SessionID || string(d.Requests[0].ID) != "7" {
		t.Fatalf("OnNodeDown got %+v", d)
	}

	// The client resumes on B and is told, rather than kept waiting.
	req, _ = c.At(srvB.URL).NewRequest(ctx(t), http.MethodGet, nil)
	req.Header.Set("Last-Event-ID", last)
	hr, err = srvB.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Body.Close()
	r := mcptest.NewEventReader(hr.Body)
	for {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("the resumed stream ended without the error: %v", err)
		}
		var m struct {
			ID    json.RawMessage
			Error *struct{ Message string }
		}
		if ev.Data == "" || json.Unmarshal([]byte(ev.Data), &m) != nil || m.Error == nil {
			continue
		}
		if string(m.ID) != string(d.Requests[0].ID) || !strings.Contains(m.Error.Message, "stopped") {
			t.Fatalf("the resumed stream ended with %s", ev.Data)
		}
		return
	}
}
