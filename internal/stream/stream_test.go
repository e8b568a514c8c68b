package stream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	notif = `{"jsonrpc":"2.0","method":"notifications/progress"}`
	resp1 = `{"jsonrpc":"2.0","id":1,"result":{}}`
	resp2 = `{"jsonrpc":"2.0","id":2,"result":{}}`
)

// newNode returns a node on a fresh memory backplane that holds session
// s1; keepAlive 0 turns keep-alive comments off.
func newNode(t *testing.T, keepAlive time.Duration, bufferBytes int) *stream.Node {
	bp := backplane.NewMemory()
	t.Cleanup(func() { _ = bp.Close() })
	if err := bp.CreateSession(t.Context(), &backplane.Session{ID: "s1"}, 0); err != nil {
		t.Fatal(err)
	}
	return stream.NewNode(stream.Config{Backplane: bp, Local: true, BufferBytes: bufferBytes,
		WriteTimeout: 5 * time.Second, KeepAlive: keepAlive, Retry: time.Second, Log: zerolog.Nop()})
}

// serve runs h behind a real HTTP server and returns its URL.
func serve(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// get sends a request and fails the test on a transport error.
func get(t *testing.T, ctx context.Context, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// post serves a POST answer on s with Await, after running produce, and
// reports what Await returned.
func post(s *stream.Stream, batch bool, produce func(), awaited chan<- bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		gen := s.AttachPOST(w)
		go produce()
		delivered := s.Await(w, r, gen, batch)
		if awaited != nil {
			awaited <- delivered
		}
	}
}

// next reads the next event, failing the test at the end of the stream.
func next(t *testing.T, er *mcptest.EventReader) mcptest.Event {
	t.Helper()
	ev, err := er.Next()
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return ev
}

// expect reads events and compares their ids and data with want
// ("id data" pairs).
func expect(t *testing.T, er *mcptest.EventReader, want ...string) {
	t.Helper()
	for _, w := range want {
		id, data, _ := strings.Cut(w, " ")
		if ev := next(t, er); ev.ID != id || ev.Data != data {
			t.Fatalf("event = %q %q, want %q %q", ev.ID, ev.Data, id, data)
		}
	}
}

func TestPlainJSONAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pending int
		batch   bool
		send    []string
		want    string
	}{
		{"one response", 1, false, []string{resp1}, resp1},
		{"a batch counts every response", 2, true, []string{resp1, resp2}, "[" + resp1 + "," + resp2 + "]"},
		{"a cancelled request completes the answer", 2, true, []string{resp1, ""}, "[" + resp1 + "]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newNode(t, 0, 1<<20).New(stream.Options{Session: "s1", ID: "p1", Pending: tc.pending})
			awaited := make(chan bool, 1)
			url := serve(t, post(s, tc.batch, func() {
				for _, m := range tc.send {
					if m == "" {
						s.Send(nil, true)
					} else {
						s.Send([]byte(m), true)
					}
				}
			}, awaited))
			res := get(t, t.Context(), url)
			body, _ := io.ReadAll(res.Body)
			if ct := res.Header.Get("Content-Type"); ct != "application/json" || string(body) != tc.want {
				t.Fatalf("answer = %s %s, want application/json %s", ct, body, tc.want)
			}
			if !<-awaited {
				t.Fatal("Await did not report the answer delivered")
			}
		})
	}
}

// A single request's refusal sets the status; in a batch, whose other
// elements ran, the answer stays 200 and keeps the header.
func TestStatusAndHeadersOfAPlainAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		batch  bool
		status int
	}{
		{"one request", false, http.StatusForbidden},
		{"a batch", true, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pending := 1
			if tc.batch {
				pending = 2
			}
			s := newNode(t, 0, 1<<20).New(stream.Options{Pending: pending, Batch: tc.batch})
			url := serve(t, post(s, tc.batch, func() {
				s.SetStatus(http.StatusForbidden)
				s.SetHeader("WWW-Authenticate", "Bearer")
				for range pending {
					s.Send([]byte(resp1), true)
				}
			}, nil))
			res := get(t, t.Context(), url)
			if res.StatusCode != tc.status || res.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Fatalf("status %d, header %q; want %d", res.StatusCode, res.Header.Get("WWW-Authenticate"), tc.status)
			}
		})
	}
}

func TestFirstNotificationStartsAnEventStream(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Session: "s1", ID: "p1", Pending: 1, Priming: true})
	url := serve(t, post(s, false, func() {
		s.Send([]byte(notif), false)
		s.Send([]byte(resp1), true)
	}, nil))
	res := get(t, t.Context(), url)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	er := mcptest.NewEventReader(res.Body)
	if ev := next(t, er); ev.ID != "p1_0" || ev.Data != "" || ev.Retry != time.Second {
		t.Fatalf("priming event = %+v", ev)
	}
	expect(t, er, "p1_1 "+notif, "p1_2 "+resp1)
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("after the response: %v, want the end of the stream", err)
	}
}

func TestKeepAliveStartsAnEventStream(t *testing.T) {
	s := newNode(t, time.Millisecond, 1<<20).New(stream.Options{Pending: 1})
	answer := make(chan struct{})
	url := serve(t, post(s, false, func() {
		<-answer
		s.Send([]byte(resp1), true)
	}, nil))
	// The head goes out with the first keep-alive comment: the client
	// sees an event stream before the answer exists.
	res := get(t, t.Context(), url)
	close(answer)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), ": keep-alive") || !strings.Contains(string(body), "data: "+resp1) {
		t.Fatalf("body = %q", body)
	}
}

func TestPendingCountsEveryResponse(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Pending: 2})
	s.Send([]byte(resp1), true)
	select {
	case <-s.Done():
		t.Fatal("complete after one of two responses")
	default:
	}
	s.Send(nil, true) // cancelled: no answer, but it counts
	<-s.Done()
	s.Send([]byte(resp2), true) // late: nowhere to go, no panic
}

func TestOrphanedPOST(t *testing.T) {
	orphaned := make(chan *stream.Stream, 1)
	s := newNode(t, 0, 1<<20).New(stream.Options{Session: "s1", ID: "p1", Pending: 1,
		Orphaned: func(s *stream.Stream) { orphaned <- s }})
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the client left before anything was decided
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", nil)
	if s.Await(httptest.NewRecorder(), req, s.AttachPOST(httptest.NewRecorder()), false) {
		t.Fatal("an abandoned answer reported delivered")
	}
	s.Send([]byte(resp1), true)
	if got := <-orphaned; got != s {
		t.Fatal("Orphaned got another stream")
	}
}

func TestResumeReplaysAfterLastEventID(t *testing.T) {
	n := newNode(t, 0, 1<<20)
	s := n.New(stream.Options{Session: "s1", ID: "p1", Pending: 1})
	first := make(chan struct{})
	awaited := make(chan bool, 1)
	url := serve(t, post(s, false, func() { s.Send([]byte(notif), false); close(first) }, awaited))
	ctx, cancel := context.WithCancel(t.Context())
	res := get(t, ctx, url)
	<-first
	expect(t, mcptest.NewEventReader(res.Body), "p1_1 "+notif)
	cancel() // the connection drops
	if <-awaited {
		t.Fatal("an unfinished stream reported delivered")
	}
	s.Send([]byte(notif), false)
	s.Send([]byte(resp1), true)

	delivered := make(chan bool, 1)
	url = serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, seq, _ := stream.ParseEventID(r.Header.Get("Last-Event-ID"))
		delivered <- s.Serve(w, r, seq, func() {})
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Last-Event-ID", "p1_1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	er := mcptest.NewEventReader(res.Body)
	expect(t, er, "p1_2 "+notif, "p1_3 "+resp1)
	if !<-delivered {
		t.Fatal("a stream delivered whole was not reported so")
	}
}

func TestLostNoticeOnReplay(t *testing.T) {
	s := newNode(t, 0, 200).New(stream.Options{Session: "s1", ID: "g1", Standalone: true})
	defer s.Stop()
	for range 5 {
		s.Notice([]byte(notif)) // about 50 bytes each: the oldest go
	}
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { s.Serve(w, r, 0, func() {}) })
	er := mcptest.NewEventReader(get(t, t.Context(), url).Body)
	if ev := next(t, er); ev.ID != "" || !strings.Contains(ev.Data, "notifications/message") || !strings.Contains(ev.Data, "200 bytes") {
		t.Fatalf("first event = %+v, want the lost notice", ev)
	}
	if ev := next(t, er); ev.ID == "g1_1" || ev.Data != notif {
		t.Fatalf("after the notice: %+v, want a later message", ev)
	}
}

// hijacked serves s on a real HTTP/1.1 server, where Serve takes the
// connection over, counting the releases.
func hijacked(t *testing.T, s *stream.Stream, releases *atomic.Int32, released chan<- struct{}) string {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		s.Serve(w, r, s.Delivered(), func() { releases.Add(1); released <- struct{}{} })
	})
}

func TestSecondAttachReplacesTheFirst(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Standalone: true})
	var releases atomic.Int32
	released := make(chan struct{}, 2)
	url := hijacked(t, s, &releases, released)
	first := mcptest.NewEventReader(get(t, t.Context(), url).Body)
	s.Notice([]byte(notif))
	expect(t, first, " "+notif) // attached: the next connection replaces it
	second := get(t, t.Context(), url)
	<-released // the first connection's
	if _, err := first.Next(); err != io.EOF {
		t.Fatalf("first connection: %v, want its end", err)
	}
	s.Notice([]byte(notif))
	expect(t, mcptest.NewEventReader(second.Body), " "+notif)
	s.Stop()
	<-released
	s.Stop()
	if n := releases.Load(); n != 2 {
		t.Fatalf("%d releases for two connections", n)
	}
}

func TestHijackedReleasesOnceWhenTheClientLeaves(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Standalone: true})
	var releases atomic.Int32
	released := make(chan struct{}, 2)
	url := hijacked(t, s, &releases, released)
	ctx, cancel := context.WithCancel(t.Context())
	res := get(t, ctx, url)
	s.Notice([]byte(notif))
	expect(t, mcptest.NewEventReader(res.Body), " "+notif)
	cancel()
	<-released
	s.Notice([]byte(notif)) // nobody reads: no second release
	s.Stop()
	if n := releases.Load(); n != 1 {
		t.Fatalf("%d releases, want 1", n)
	}
}

func TestServeOnAStoppedStreamReleases(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Standalone: true})
	s.Stop()
	<-s.Done()
	var releases atomic.Int32
	released := make(chan struct{}, 1)
	res := get(t, t.Context(), hijacked(t, s, &releases, released))
	<-released
	if _, err := io.ReadAll(res.Body); err != nil {
		t.Fatalf("%v, want a clean end", err)
	}
}

func TestCloseConnEndsTheConnectionNotTheStream(t *testing.T) {
	s := newNode(t, 0, 1<<20).New(stream.Options{Session: "s1", ID: "p1", Pending: 1})
	awaited := make(chan bool, 1)
	url := serve(t, post(s, false, func() { s.Send([]byte(notif), false); s.CloseConn() }, awaited))
	er := mcptest.NewEventReader(get(t, t.Context(), url).Body)
	expect(t, er, "p1_1 "+notif)
	if ev := next(t, er); ev.ID != "p1_1" || ev.Data != "" || ev.Retry != time.Second {
		t.Fatalf("closing event = %+v, want a retry with the last id", ev)
	}
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("%v, want the end of the connection", err)
	}
	if <-awaited {
		t.Fatal("an unfinished stream reported delivered")
	}
	select {
	case <-s.Done():
		t.Fatal("CloseConn completed the stream")
	default:
	}
	s.Stop()
}

func TestParseEventID(t *testing.T) {
	for _, tc := range []struct {
		id, stream string
		seq        uint64
		ok         bool
	}{
		{"p1_7", "p1", 7, true},
		{"a_b_12", "a_b", 12, true},
		{"_3", "", 0, false},
		{"p1", "", 0, false},
		{"p1_x", "p1", 0, false},
	} {
		stream, seq, ok := stream.ParseEventID(tc.id)
		if ok != tc.ok || ok && (stream != tc.stream || seq != tc.seq) {
			t.Errorf("ParseEventID(%q) = %q %d %v", tc.id, stream, seq, ok)
		}
	}
}

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header, want string
		ok           bool
	}{
		{"application/json, text/event-stream", "text/event-stream", true},
		{"text/*;q=0.5", "text/event-stream", true},
		{"*/*", "application/json", true},
		{"text/html", "application/json", false},
		{"", "application/json", false},
	} {
		if got := stream.Accepts(tc.header, tc.want); got != tc.ok {
			t.Errorf("Accepts(%q, %q) = %v", tc.header, tc.want, got)
		}
	}
	if !stream.IsMediaType("Application/JSON; charset=utf-8", "application/json") || stream.IsMediaType("text/plain", "application/json") {
		t.Error("IsMediaType")
	}
}
