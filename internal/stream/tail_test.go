package stream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcptest"
)

// redisNode returns a node on its own connection to a shared Redis, as
// one node of a deployment, that wakes its tails on the wake-ups other
// nodes publish.
func redisNode(t *testing.T, url string) (*stream.Node, backplane.Backplane) {
	bp, err := redisbp.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bp.Close() })
	n := stream.NewNode(stream.Config{Backplane: bp, BufferBytes: 1 << 20, WriteTimeout: 5 * time.Second,
		Retry: time.Second, Log: zerolog.Nop(), Publish: func(m *backplane.Message) { _ = bp.Publish(context.Background(), m) }})
	stop, err := bp.Subscribe(func(m *backplane.Message) {
		if m.Kind == backplane.KindWake {
			n.Wake(m.Session, m.Stream)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return n, bp
}

func TestTailFollowsAStreamAnotherNodeProduces(t *testing.T) {
	redis := redistest.Start(t)
	a, bp := redisNode(t, redis.URL)
	b, _ := redisNode(t, redis.URL)
	if err := bp.CreateSession(t.Context(), &backplane.Session{ID: "s1"}, time.Minute); err != nil {
		t.Fatal(err)
	}

	// Node a answers a POST as an event stream; its client leaves after
	// the first message.
	s := a.New(stream.Options{Session: "s1", ID: "p1", Pending: 1})
	ctx, cancel := context.WithCancel(t.Context())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	gen := s.AttachPOST(rec)
	s.Send([]byte(notif), false)
	cancel()
	s.Await(rec, req, gen, false)

	// The client resumes on node b, which follows what a appends.
	if ok, err := b.Find(t.Context(), &stream.Source{Session: "s1", ID: "p1"}); !ok || err != nil {
		t.Fatal("node b does not see the stream")
	}
	following := make(chan struct{})
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		close(following)
		b.Tail(w, r, stream.Source{Session: "s1", ID: "p1"}, 1, nil)
	})
	res := get(t, t.Context(), url)
	<-following
	s.Send([]byte(notif), false)
	s.Send([]byte(resp1), true)
	er := mcptest.NewEventReader(res.Body)
	expect(t, er, "p1_2 "+notif, "p1_3 "+resp1)
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want the end of the stream", err)
	}
}

// TestFindTellsAnOutageFromAbsence: a stream the backplane cannot be
// asked about is an error, which the router answers 503 "retry", not
// "absent", which it answers 400 "names no stream".
func TestFindTellsAnOutageFromAbsence(t *testing.T) {
	redis := redistest.Start(t)
	n, bp := redisNode(t, redis.URL)
	if err := bp.CreateSession(t.Context(), &backplane.Session{ID: "s1"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ok, err := n.Find(t.Context(), &stream.Source{Session: "s1", ID: "nope"}); ok || err != nil {
		t.Fatalf("absent stream: %v %v", ok, err)
	}
	redis.Stop()
	if ok, err := n.Find(t.Context(), &stream.Source{Session: "s1", ID: "nope"}); ok || err == nil {
		t.Fatalf("Redis down: %v %v, want an error", ok, err)
	}
}

// TestTailReportsAHole: an event missing from a stream's buffer (its
// Append failed while the producer went on) is reported to the client
// that resumes, before the events after it, rather than skipped in
// silence.
func TestTailReportsAHole(t *testing.T) {
	redis := redistest.Start(t)
	n, bp := redisNode(t, redis.URL)
	ctx := t.Context()
	if err := bp.CreateSession(ctx, &backplane.Session{ID: "s1"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []backplane.Event{{Seq: 0}, {Seq: 1, Data: []byte(notif)}, {Seq: 3, Data: []byte(resp1), Last: true}} {
		if err := bp.Append(ctx, "s1", "p1", ev, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n.Tail(w, r, stream.Source{Session: "s1", ID: "p1"}, 0, nil)
	})
	er := mcptest.NewEventReader(get(t, ctx, url).Body)
	expect(t, er, "p1_1 "+notif)
	if ev := next(t, er); ev.ID != "" || !strings.Contains(ev.Data, "were lost") {
		t.Fatalf("after a hole: %q %q, want the notice of lost messages", ev.ID, ev.Data)
	}
	expect(t, er, "p1_3 "+resp1)
}
