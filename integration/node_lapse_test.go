package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// unrecorded is a node's backplane whose lease never records the node's
// work, as happens to work that starts less than a moment (the lease's
// settle) before its node dies: nobody takes it over from the lease.
type unrecorded struct{ *redisbp.Backplane }

func (u unrecorded) Heartbeat(ctx context.Context, node string, ttl time.Duration, _ []string) error {
	return u.Backplane.Heartbeat(ctx, node, ttl, nil)
}

// lapseTools adds the tools of TestNodeKillLeavesNothingWaiting to a
// node process's router.
func lapseTools(r *specter.Router) {
	r.Tool("hold_open", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			// The answer becomes a stream whose first event the client
			// holds; then the call runs until its node dies.
			if err := s.Notify("notifications/count", map[string]int{"n": 1}); err != nil {
				return specter.Error(err)
			}
			<-s.Done()
			return specter.Error(s.Err())
		})
	}, specter.Description("Runs until its node dies"))
	r.Tool("announce", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		r.NotifyResourceUpdated(p.String("uri"))
		return specter.Reply("announced")
	}, specter.Description("Tells the subscribers of a resource that it changed"), params.String("uri", params.Required()))
}

// numbered is the resource whose update announces number n.
func numbered(n int) string { return fmt.Sprintf("test://template/%d/data", n) }

// TestNodeKillLeavesNothingWaiting kills (SIGKILL), on one Redis and on a
// Redis Cluster, a node whose lease never recorded its work, as for work
// it started a moment before it died. A call it was answering, resumed
// on another node, ends with the dead node's error instead of keep-alives
// forever; a listener whose GET stream was on it reconnects through the
// load balancer with Last-Event-ID and gets every numbered notification
// published from another node once and in order, with an explicit notice
// where some could not reach it, and live delivery after.
func TestNodeKillLeavesNothingWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a node process and waits for its lease to end; skipped with -short")
	}
	t.Run("redis", func(t *testing.T) { nodeKillLeavesNothingWaiting(t, redistest.Start(t).URL) })
	t.Run("cluster", func(t *testing.T) { nodeKillLeavesNothingWaiting(t, redistest.StartCluster(t).URL) })
}

func nodeKillLeavesNothingWaiting(t *testing.T, redisURL string) {
	tctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	defer nodeClient.CloseIdleConnections()
	prefix := fmt.Sprintf("l%d", clusterPrefix.Add(1))
	bases := make([]string, 3)
	var victim *nodeProc
	for i := range bases {
		var env []string
		if i == 1 {
			env = []string{"SPECTER_NODE_UNRECORDED=1"}
		}
		p := startNodeProc(t, redisURL, prefix, freeAddr(t), env...)
		bases[i] = "http://" + p.addr
		if i == 1 {
			victim = p
		}
	}
	base := mcptest.NewClient(proxyTo(t, bases) + "/mcp")
	base.HTTP = nodeClient
	if _, err := base.Initialize(tctx, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	const total = 250 // within the default limit of 256 subscriptions
	for n := 1; n <= total; n++ {
		if resp, err := base.Call(tctx, "resources/subscribe", map[string]any{"uri": numbered(n)}); err != nil || resp.Error != nil {
			t.Fatalf("subscribe %d: %+v %v", n, resp, err)
		}
	}
	announcer := base.At(bases[2] + "/mcp")
	announce := func(n int) {
		t.Helper()
		if res, _, err := announcer.CallTool(tctx, "announce", map[string]any{"uri": numbered(n)}); err != nil || res.IsError {
			t.Fatalf("announce %d: %+v %v", n, res, err)
		}
	}

	// The listener's GET stream is on the node that dies.
	l := &listener{numbers: make(chan int, total)}
	first, err := base.At(bases[1]+"/mcp").Listen(tctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { l.follow(tctx, base, first) })
	for n := 1; n <= 10; n++ {
		announce(n)
		if got := l.next(tctx); got != n {
			t.Fatalf("before the kill the listener got %d, want %d", got, n)
		}
	}

	// A call on that node, which its lease did not record.
	victimClient := base.At(bases[1] + "/mcp")
	id := victimClient.NewID()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": "hold_open"}})
	req, _ := victimClient.NewRequest(tctx, http.MethodPost, body)
	hr, err := nodeClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	er := mcptest.NewEventReader(hr.Body)
	var last string
	for last == "" || !strings.HasSuffix(last, "_1") {
		ev, err := er.Next()
		if err != nil {
			t.Fatalf("the call's first event: %v", err)
		}
		if ev.ID != "" {
			last = ev.ID
		}
	}

	victim.kill()
	hr.Body.Close()

	// Numbers go on being published from another node, during the kill
	// and after.
	announced := make(chan int, 1) // the last number published, once stopped
	stop := make(chan struct{})
	wg.Go(func() {
		n := 11
		defer func() { announced <- n - 1 }()
		tick := time.NewTicker(100 * time.Millisecond) // the pace of the publisher, not a wait for anything
		defer tick.Stop()
		for ; n <= total-5; n++ {
			if res, _, err := announcer.CallTool(tctx, "announce", map[string]any{"uri": numbered(n)}); err != nil || res.IsError {
				t.Errorf("announce %d: %+v %v", n, res, err)
				return
			}
			select {
			case <-tick.C:
			case <-stop:
				n++
				return
			}
		}
	})

	// The call resumed on another node ends with the dead node's error.
	resp, err := resumeUntilAnswered(tctx, base, last)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.ID) != string(id) || resp.Error == nil || !strings.Contains(resp.Error.Message, "stopped") || !strings.Contains(mustJSON(resp.Error.Data), `"down"`) {
		t.Fatalf("the resumed call ended with %s, want the dead node's error for id %s", mustJSON(resp), id)
	}

	// The listener reconnects and gets what was published, once, in
	// order, or a notice of what could not reach it.
	if got := l.next(tctx); got <= 10 {
		t.Fatal("the listener got no notification after the kill: its GET stream's delivery did not move over")
	}
	close(stop)
	next := <-announced + 1
	if next > total-5 {
		t.Fatal("the publisher ran out of numbers before the listener got one after the kill")
	}
	for n := next; n <= next+3; n++ { // live delivery, without a gap
		announce(n)
		for {
			got := l.next(tctx)
			if got == n {
				break
			}
			if got > n || got < 0 {
				t.Fatalf("live delivery after the move: got %d, want %d", got, n)
			}
		}
	}
	cancel()
	wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		t.Fatal(l.err)
	}
	t.Logf("listener: %d notices of lost notifications, %d reconnections", l.notices, l.reconnects)
}

// listener follows a session's GET stream and checks the numbers it
// announces: each once and in order, a skipped one only after a notice.
type listener struct {
	numbers chan int
	mu      sync.Mutex
	err     error
	notices int
	// reconnects counts the GETs after the first.
	reconnects int
}

func (l *listener) next(ctx context.Context) int {
	select {
	case n := <-l.numbers:
		return n
	case <-ctx.Done():
		return -1
	}
}

func (l *listener) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

// follow reads s, and whenever it ends reconnects through c (the load
// balancer) with the last event id, until ctx ends.
func (l *listener) follow(ctx context.Context, c *mcptest.Client, s *mcptest.Stream) {
	last, noticed, lastID := 0, false, ""
	for ctx.Err() == nil {
		m, _, err := s.Next()
		if s.LastEventID != "" {
			lastID = s.LastEventID // as clients do, across connections
		}
		if err != nil {
			s.Close()
			for ctx.Err() == nil {
				var se *mcptest.StatusError
				s, err = c.Listen(ctx, lastID)
				if errors.As(err, &se) && se.Status == http.StatusBadGateway {
					continue // the proxy chose the dead node
				}
				if err != nil {
					if ctx.Err() == nil {
						l.fail(fmt.Errorf("reconnecting the GET stream: %w", err))
					}
					return
				}
				break
			}
			l.mu.Lock()
			l.reconnects++
			l.mu.Unlock()
			continue
		}
		switch m.Method {
		case mcp.NotificationMessage:
			if strings.Contains(string(m.Params), "messages of this stream") {
				noticed = true
				l.mu.Lock()
				l.notices++
				l.mu.Unlock()
			}
		case mcp.NotificationResourceUpdated:
			var p mcp.ResourceUpdatedParams
			_ = json.Unmarshal(m.Params, &p)
			var n int
			if _, err := fmt.Sscanf(p.URI, "test://template/%d/data", &n); err != nil {
				l.fail(fmt.Errorf("an update of %q", p.URI))
				return
			}
			switch {
			case n <= last:
				l.fail(fmt.Errorf("number %d after %d: a repeat or out of order", n, last))
				return
			case n != last+1 && !noticed:
				l.fail(fmt.Errorf("numbers %d to %d were lost without a notice", last+1, n-1))
				return
			}
			last, noticed = n, false
			l.numbers <- n
		}
	}
}

// resumeUntilAnswered resumes a call's stream through c after event id
// last until its answer arrives, through whichever nodes the load
// balancer picks.
func resumeUntilAnswered(ctx context.Context, c *mcptest.Client, last string) (*jsonrpc.Message, error) {
	for ctx.Err() == nil {
		req, _ := c.NewRequest(ctx, http.MethodGet, nil)
		req.Header.Set("Last-Event-ID", last)
		hr, err := nodeClient.Do(req)
		if err != nil {
			return nil, err
		}
		if hr.StatusCode == http.StatusBadGateway {
			hr.Body.Close()
			continue // the proxy chose the dead node
		}
		if hr.StatusCode != http.StatusOK {
			hr.Body.Close()
			return nil, fmt.Errorf("resume: HTTP %d", hr.StatusCode)
		}
		er := mcptest.NewEventReader(hr.Body)
		for {
			ev, err := er.Next()
			if err != nil {
				break // the connection ended: resume again
			}
			if ev.ID != "" {
				last = ev.ID
			}
			var m jsonrpc.Message
			if ev.Data == "" || json.Unmarshal([]byte(ev.Data), &m) != nil {
				continue
			}
			if k := m.Kind(); k == jsonrpc.KindResponse || k == jsonrpc.KindErrorResponse {
				hr.Body.Close()
				return &m, nil
			}
		}
		hr.Body.Close()
	}
	return nil, errors.New("the resumed call hangs: no answer before the test's deadline")
}
