package stream_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcptest"
)

// deployment is a memory backplane holding session s1, shared by the
// nodes that nodeOf makes, where node "a" is gone once gone is set.
type deployment struct {
	bp   *backplane.Memory
	gone atomic.Bool
}

func newDeployment(t *testing.T) *deployment {
	d := &deployment{bp: backplane.NewMemory()}
	t.Cleanup(func() { _ = d.bp.Close() })
	if err := d.bp.CreateSession(t.Context(), &backplane.Session{ID: "s1"}, 0); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *deployment) node() *stream.Node {
	return stream.NewNode(stream.Config{Backplane: d.bp, BufferBytes: 1 << 20, WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop(),
		Alive: func(_ context.Context, node string) (bool, error) { return node != "a" || !d.gone.Load(), nil }})
}

// TestTailEndsTheAnswerOfAGoneNode: a POST answer whose node is gone
// before its lease recorded the request is ended, by the node that tails
// it for a resumed client, with the error of the request its head names;
// the error is appended once, so every resume sees the same end.
func TestTailEndsTheAnswerOfAGoneNode(t *testing.T) {
	d := newDeployment(t)
	a, b := d.node(), d.node()
	s := a.New(stream.Options{Session: "s1", ID: "pa.1", Pending: 1,
		Requests: []*jsonrpc.Message{{ID: jsonrpc.ID(`"call-7"`), Method: "tools/call"}}})
	ctx, cancel := context.WithCancel(t.Context())
	url := serve(t, post(s, false, func() { s.Send([]byte(notif), false) }, nil))
	er := mcptest.NewEventReader(get(t, ctx, url).Body)
	expect(t, er, "pa.1_1 "+notif)
	cancel()
	d.gone.Store(true) // node a dies before it answers

	src := stream.Source{Session: "s1", ID: "pa.1", Node: "a"}
	if ok, err := b.Find(t.Context(), &src); !ok || err != nil {
		t.Fatalf("the stream of the gone node: %v %v", ok, err)
	}
	for range 2 {
		url := serve(t, func(w http.ResponseWriter, r *http.Request) { b.Tail(w, r, src, 1, nil) })
		er := mcptest.NewEventReader(get(t, t.Context(), url).Body)
		ev := next(t, er)
		if ev.ID != "pa.1_2" || !strings.Contains(ev.Data, `"id":"call-7"`) || !strings.Contains(ev.Data, `"reason":"down"`) || !strings.Contains(ev.Data, "(a) stopped") {
			t.Fatalf("the resumed answer: %q %q, want the gone node's error for call-7", ev.ID, ev.Data)
		}
		if _, err := er.Next(); err != io.EOF {
			t.Fatalf("after the error: %v, want the end of the stream", err)
		}
	}
	evs, _, err := d.bp.Events(t.Context(), "s1", "pa.1", 0)
	if err != nil || len(evs) != 2 || !evs[1].Last {
		t.Fatalf("the buffer: %+v %v, want the notification and one final error", evs, err)
	}
}

// TestTailLetsTheGetStreamOfAGoneNodeGo: a tail of a GET stream whose
// node is gone ends, so that its client reconnects to a node that moves
// the stream over, rather than waiting for events nobody will send.
func TestTailLetsTheGetStreamOfAGoneNodeGo(t *testing.T) {
	d := newDeployment(t)
	if err := d.bp.Append(t.Context(), "s1", "ga.1", backplane.Event{Seq: 1, Data: []byte(notif)}, 1<<20); err != nil {
		t.Fatal(err)
	}
	d.gone.Store(true)
	b := d.node()
	src := stream.Source{Session: "s1", ID: "ga.1", Node: "a", Standalone: true}
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { b.Tail(w, r, src, 0, nil) })
	er := mcptest.NewEventReader(get(t, t.Context(), url).Body)
	expect(t, er, "ga.1_1 "+notif)
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("after the buffered events: %v, want the end of the stream", err)
	}
}

// TestServeMovedTakesOverAGoneNodesGetStream: a client that resumes the
// GET stream of a gone node gets the events it missed there, a notice of
// what could not reach it, then this node's GET stream, live.
func TestServeMovedTakesOverAGoneNodesGetStream(t *testing.T) {
	d := newDeployment(t)
	for seq := uint64(1); seq <= 3; seq++ {
		if err := d.bp.Append(t.Context(), "s1", "ga.1", backplane.Event{Seq: seq, Data: []byte(notif)}, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	b := d.node()
	g := b.New(stream.Options{Session: "s1", ID: "gb.1", Standalone: true})
	defer g.Stop()
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		g.ServeMoved(w, r, g.Delivered(), "ga.1", 1, func() {})
	})
	er := mcptest.NewEventReader(get(t, t.Context(), url).Body)
	expect(t, er, "ga.1_2 "+notif, "ga.1_3 "+notif)
	if ev := next(t, er); ev.ID != "" || !strings.Contains(ev.Data, "node that held it stopped") {
		t.Fatalf("after the gone node's events: %q %q, want the notice", ev.ID, ev.Data)
	}
	g.Notice([]byte(resp1))
	expect(t, er, "gb.1_1 "+resp1)
}

// TestTailEndsOnlyTheUnansweredRequestsOfABatch: of a batch whose node is
// gone, the requests answered before are not answered twice.
func TestTailEndsOnlyTheUnansweredRequestsOfABatch(t *testing.T) {
	d := newDeployment(t)
	a, b := d.node(), d.node()
	s := a.New(stream.Options{Session: "s1", ID: "pa.2", Pending: 2, Batch: true,
		Requests: []*jsonrpc.Message{{ID: jsonrpc.ID("1"), Method: "tools/call"}, {Method: "notifications/cancelled"}, {ID: jsonrpc.ID("2"), Method: "tools/call"}}})
	ctx, cancel := context.WithCancel(t.Context())
	url := serve(t, post(s, true, func() { s.Send([]byte(notif), false); s.Send([]byte(resp1), true) }, nil))
	er := mcptest.NewEventReader(get(t, ctx, url).Body)
	expect(t, er, "pa.2_1 "+notif, "pa.2_2 "+resp1)
	cancel()
	d.gone.Store(true)

	src := stream.Source{Session: "s1", ID: "pa.2", Node: "a"}
	if ok, err := b.Find(t.Context(), &src); !ok || err != nil {
		t.Fatalf("the stream of the gone node: %v %v", ok, err)
	}
	url = serve(t, func(w http.ResponseWriter, r *http.Request) { b.Tail(w, r, src, 2, nil) })
	er = mcptest.NewEventReader(get(t, t.Context(), url).Body)
	if ev := next(t, er); ev.ID != "pa.2_3" || !strings.Contains(ev.Data, `"id":2,`) || !strings.Contains(ev.Data, `"reason":"down"`) {
		t.Fatalf("the resumed batch: %q %q, want the error of request 2 alone", ev.ID, ev.Data)
	}
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("after the error: %v, want the end of the stream", err)
	}
}
