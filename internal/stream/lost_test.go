package stream_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcptest"
)

// refusing is a backplane whose Append fails while refuse is set, as
// Redis's does during an outage, or after it came back without the
// session's data.
type refusing struct {
	backplane.Backplane
	refuse atomic.Bool
}

func (r *refusing) Append(ctx context.Context, session, stream string, ev backplane.Event, limit int) error {
	if r.refuse.Load() {
		return backplane.ErrNotFound
	}
	return r.Backplane.Append(ctx, session, stream, ev, limit)
}

// TestResumeOnTheProducerGetsMessagesStoredLate: messages a stream
// produced while no connection was attached and the backplane did not
// take them wait on the producing node and are stored once it answers, so
// a client that resumes gets them, in order, before those that come live.
// Beyond the buffer's bound the oldest go, and the client is told rather
// than left with a silent gap.
func TestResumeOnTheProducerGetsMessagesStoredLate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before int // messages buffered before the backplane refuses
		bound  int // BufferBytes
		want   []string
	}{
		{"after buffered messages", 1, 1 << 20, []string{"p1_2 " + notif, "p1_3 " + notif, "p1_4 " + resp1}},
		{"with nothing buffered", 0, 1 << 20, []string{"p1_2 " + notif, "p1_3 " + notif, "p1_4 " + resp1}},
		{"beyond the bound", 1, len(notif) + 1, []string{"lost", "p1_3 " + notif, "p1_4 " + resp1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bp := &refusing{Backplane: backplane.NewMemory()}
			t.Cleanup(func() { _ = bp.Close() })
			if err := bp.CreateSession(t.Context(), &backplane.Session{ID: "s1"}, 0); err != nil {
				t.Fatal(err)
			}
			n := stream.NewNode(stream.Config{Backplane: bp, Local: true, BufferBytes: tc.bound,
				WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
			s := n.New(stream.Options{Session: "s1", ID: "p1", Pending: 1, Priming: true})
			t.Cleanup(s.Stop)
			bp.refuse.Store(tc.before == 0)
			sent := make(chan struct{})
			url := serve(t, post(s, false, func() { s.Send([]byte(notif), false); close(sent) }, nil))
			ctx, cancel := context.WithCancel(t.Context())
			er := mcptest.NewEventReader(get(t, ctx, url).Body)
			<-sent
			expect(t, er, "p1_0 ", "p1_1 "+notif)
			cancel() // the connection drops

			bp.refuse.Store(true)
			s.Send([]byte(notif), false) // p1_2 and p1_3: kept on this node
			s.Send([]byte(notif), false)
			bp.refuse.Store(false)

			url = serve(t, func(w http.ResponseWriter, r *http.Request) { s.Serve(w, r, 1, func() {}) })
			er = mcptest.NewEventReader(get(t, t.Context(), url).Body)
			expect(t, er, "p1_1 ") // the priming event: the stream is attached
			s.Send([]byte(resp1), true)
			for _, want := range tc.want {
				if want == "lost" {
					if ev := next(t, er); ev.ID != "" || !strings.Contains(ev.Data, "were lost") {
						t.Fatalf("after a message dropped beyond the bound: %q %q, want the notice of lost messages", ev.ID, ev.Data)
					}
					continue
				}
				expect(t, er, want)
			}
		})
	}
}
