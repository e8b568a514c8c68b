package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTable returns a table on a fresh memory backplane and a session
// created in it.
func newTable(t *testing.T, timeout time.Duration, expired func(*session.Session, string)) (*session.Table, *session.Session, backplane.Backplane) {
	return newTableOn(t, backplane.NewMemory(), timeout, expired)
}

// newTableOn is newTable on bp.
func newTableOn(t *testing.T, bp backplane.Backplane, timeout time.Duration, expired func(*session.Session, string)) (*session.Table, *session.Session, backplane.Backplane) {
	t.Cleanup(func() { _ = bp.Close() })
	streams := stream.NewNode(stream.Config{Backplane: bp, Local: true, BufferBytes: 1 << 20,
		WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	tab := session.NewTable(session.Config{Backplane: bp, Local: true, Streams: streams, Timeout: timeout,
		Node: "n1", Log: zerolog.Nop(), Publish: func(*backplane.Message) {}, Expired: expired})
	s, err := tab.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion, Principal: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return tab, s, bp
}

func TestTableHoldsOneSessionPerID(t *testing.T) {
	tab, s, _ := newTable(t, 0, nil)
	if tab.Get(s.ID()) != s || tab.Len() != 1 || len(tab.All()) != 1 {
		t.Fatal("the created session is not held")
	}
	if again := tab.Add(&backplane.Session{ID: s.ID()}); again != s {
		t.Fatal("Add replaced a session held")
	}
	if !s.Stop() || s.Stop() {
		t.Fatal("Stop must report true exactly once")
	}
	if tab.Get(s.ID()) != nil || tab.Len() != 0 {
		t.Fatal("a stopped session is still held")
	}
	if s.Context().Err() == nil {
		t.Fatal("Stop did not cancel the session's context")
	}
}

func TestRequestsInFlight(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	id := jsonrpc.ID(`1`)
	ctx, cancel := context.WithCancel(t.Context())
	if !s.Begin(id, cancel) {
		t.Fatal("Begin refused a new id")
	}
	if s.Begin(id, func() {}) {
		t.Fatal("Begin took an id already in flight")
	}
	if !s.Cancel(id) || ctx.Err() == nil {
		t.Fatal("Cancel did not cancel the request")
	}
	if !s.End(id) {
		t.Fatal("End did not report the cancellation")
	}
	if s.Cancel(id) || s.End(id) {
		t.Fatal("an ended request is still known")
	}
}

func TestServerRequestsAwaitTheirAnswer(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	id, ch := s.Await()
	s.Answer(&jsonrpc.Message{ID: id, Result: json.RawMessage(`{}`)})
	if m := <-ch; string(m.ID) != string(id) {
		t.Fatalf("answer for %s, want %s", m.ID, id)
	}
	id, _ = s.Await()
	s.Forget(id)
	if s.Deliver(&jsonrpc.Message{ID: id}) {
		t.Fatal("an answer reached a forgotten request")
	}
}

func TestAsk(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	ob := s.NewStream(nil, 1, false)
	probe, _ := s.Await() // ids of server requests count up: Ask's is the next
	s.Forget(probe)
	n, _ := strconv.ParseUint(string(probe[5:len(probe)-1]), 36, 64) // "sn1.<n>"
	next := jsonrpc.StringID("sn1." + strconv.FormatUint(n+1, 36))
	go func() {
		for !s.Deliver(&jsonrpc.Message{ID: next, Result: json.RawMessage(`{"roots":[]}`)}) {
			time.Sleep(time.Millisecond) // until Ask waits for it
		}
	}()
	if m, err := s.Ask(t.Context(), ob, "roots/list", []byte(`{}`), time.Hour); err != nil || string(m.Result) != `{"roots":[]}` {
		t.Fatalf("answered: %v %v", m, err)
	}
	if _, err := s.Ask(t.Context(), ob, "roots/list", []byte(`{}`), time.Millisecond); !errors.Is(err, session.ErrInputTimeout) {
		t.Fatalf("unanswered: %v; want ErrInputTimeout", err)
	}
	s.Stop()
	if _, err := s.Ask(s.Context(), ob, "roots/list", []byte(`{}`), time.Hour); !errors.Is(err, session.ErrEnded) {
		t.Fatalf("the session ended: %v; want ErrEnded", err)
	}
}

func TestNotifyJSON(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	if err := s.NotifyJSON("notifications/message", map[string]string{"level": "info"}); err != nil {
		t.Fatal(err) // no GET stream here: nothing to send on, and no error
	}
	if err := s.NotifyJSON("notifications/message", func() {}); err == nil {
		t.Fatal("params that do not encode were sent")
	}
}

func TestNotificationCancelled(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	ctx, cancel := context.WithCancel(t.Context())
	s.Begin(jsonrpc.ID(`"r1"`), cancel)
	s.Notification(&jsonrpc.Message{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":"r1"}`)})
	if ctx.Err() == nil || !s.End(jsonrpc.ID(`"r1"`)) {
		t.Fatal("notifications/cancelled did not cancel the request")
	}
}

func TestSharedFieldsReachTheBackplane(t *testing.T) {
	_, s, bp := newTable(t, 0, nil)
	if err := s.Subscribe("file:///a", true); err != nil {
		t.Fatal(err)
	}
	if err := s.Store("k", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLevel(mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	rec, err := bp.LoadSession(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Subscriptions) != 1 || string(rec.Data["k"]) != `"v"` || rec.LogLevel != mcp.LevelError.Severity() {
		t.Fatalf("record = %+v", rec)
	}
	if raw, ok := s.Load("k"); !ok || string(raw) != `"v"` || !s.Subscribed("file:///a") || s.Level() != mcp.LevelError {
		t.Fatal("the local copy differs")
	}
	if err := s.Subscribe("file:///a", false); err != nil || s.Subscribed("file:///a") {
		t.Fatal("unsubscribe failed")
	}
}

func TestStreams(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	o := s.NewStream(nil, 1, false)
	if s.Stream(o.ID()) != o {
		t.Fatal("a new stream is not found by id")
	}
	g := s.GetStream()
	if s.GetStream() != g || s.Stream(g.ID()) != g || !s.HasGetStream() {
		t.Fatal("the GET stream is not one stream")
	}
	s.DropStream(o)
	if s.Stream(o.ID()) != nil {
		t.Fatal("a dropped stream is still found")
	}
	s.Stop()
	<-g.Done() // stopping the session stops its streams
}

func TestOrphanedStreamIsDropped(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	o := s.NewStream(nil, 1, false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rec := httptest.NewRecorder()
	o.Await(rec, httptest.NewRequestWithContext(ctx, http.MethodPost, "/", nil), o.AttachPOST(rec), false)
	o.Send([]byte(`{}`), true)
	if s.Stream(o.ID()) != nil {
		t.Fatal("an answer nobody can ask for is still held")
	}
}

func TestServeErrors(t *testing.T) {
	_, s, _ := newTable(t, 0, nil)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	released := 0
	release := func() { released++ }
	if err := s.Serve(httptest.NewRecorder(), req, "nope_1", release); err != session.ErrNoStream {
		t.Fatalf("unknown Last-Event-ID: %v", err)
	}
	if !s.GetStream().Reserve() {
		t.Fatal("Reserve failed on a free GET stream")
	}
	if err := s.Serve(httptest.NewRecorder(), req, "", release); err != session.ErrConflict {
		t.Fatalf("second GET stream: %v", err)
	}
	if released != 2 {
		t.Fatalf("release ran %d times for 2 refused GETs", released)
	}
}

// A GET stream's release runs once, when its connection ends.
func TestServeReleasesWhenTheConnectionEnds(t *testing.T) {
	tab, s, _ := newTable(t, 0, nil)
	if tab.Attached() != 0 {
		t.Fatal("a GET stream is attached before any GET")
	}
	ctx, cancel := context.WithCancel(t.Context())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	released := make(chan struct{}, 2)
	done := make(chan error, 1)
	go func() { done <- s.Serve(httptest.NewRecorder(), req, "", func() { released <- struct{}{} }) }()
	for tab.Attached() != 1 {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-released:
		t.Fatal("released while the connection is open")
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-released
	if len(released) != 0 {
		t.Fatal("released twice")
	}
}

// downBackplane stores no session.
type downBackplane struct{ backplane.Backplane }

func (downBackplane) CreateSession(context.Context, *backplane.Session, time.Duration) error {
	return errors.New("backplane down")
}

// What a session counted against its creator's limits is given back when
// the session stops, or at once when it cannot be created.
func TestCreateReleasesOnStop(t *testing.T) {
	tab, _, bp := newTable(t, 0, nil)
	released := 0
	s, err := tab.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion}, func() { released++ })
	if err != nil {
		t.Fatal(err)
	}
	if released != 0 {
		t.Fatal("released a live session")
	}
	s.Stop()
	s.Stop()
	if released != 1 {
		t.Fatalf("released %d times, want once", released)
	}
	down := session.NewTable(session.Config{Backplane: downBackplane{bp}, Local: true, Streams: stream.NewNode(stream.Config{Backplane: bp}),
		Log: zerolog.Nop(), Publish: func(*backplane.Message) {}})
	if _, err := down.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion}, func() { released++ }); err == nil {
		t.Fatal("created a session on a backplane that is down")
	}
	if released != 2 {
		t.Fatalf("a failed Create released %d times, want once", released-1)
	}
}

func TestIdleSessionExpires(t *testing.T) {
	expired := make(chan string, 1)
	_, s, _ := newTable(t, 20*time.Millisecond, func(_ *session.Session, why string) { expired <- why })
	s.WatchIdle()
	if why := <-expired; why != session.EndTimeout {
		t.Fatalf("an idle session ended with %q", why)
	}
}

// A session in use whose record the backplane lost ends with EndError.
func TestLostSessionEndsWithError(t *testing.T) {
	expired := make(chan string, 1)
	_, s, bp := newTable(t, 20*time.Millisecond, func(_ *session.Session, why string) { expired <- why })
	s.Enter()
	defer s.Leave()
	if _, err := bp.DeleteSession(t.Context(), s.ID()); err != nil {
		t.Fatal(err)
	}
	s.WatchIdle()
	if why := <-expired; why != session.EndError {
		t.Fatalf("a lost session ended with %q", why)
	}
}

func TestFollow(t *testing.T) {
	_, s, bp := newTable(t, 0, nil)
	if err := s.Follow("orders", true); err != nil {
		t.Fatal(err)
	}
	if err := s.Follow("prices", true); err != nil {
		t.Fatal(err)
	}
	if err := s.Follow("orders", false); err != nil {
		t.Fatal(err)
	}
	if s.Follows("orders") || !s.Follows("prices") {
		t.Error("Follows does not match what Follow did")
	}
	if rec, err := bp.LoadSession(t.Context(), s.ID()); err != nil || len(rec.Topics) != 1 || rec.Topics[0] != "prices" {
		t.Fatalf("shared topics: %+v %v", rec, err)
	}
}

// touchSpy tells each extension of a session record that succeeded on
// the backplane it wraps.
type touchSpy struct {
	backplane.Backplane
	extended chan time.Duration // the ttl of each
}

func (s *touchSpy) TouchSession(ctx context.Context, id string, ttl time.Duration) error {
	err := s.Backplane.TouchSession(ctx, id, ttl)
	if err == nil {
		select {
		case s.extended <- ttl:
		default: // nobody follows them any more
		}
	}
	return err
}

// TestBusySessionKeepsItsRecord: a session with a stream open outlives
// its timeout, because the sweeper extends its shared record while it is
// busy, and ends once it is left idle. The test follows the extensions
// as they happen rather than sleeping for a guessed time. The timeout is
// long enough that the sweeper's first check, due at half of it, comes
// before the record created with it lapses even on a loaded machine; a
// record that lapsed ends the session, which the test reports.
func TestBusySessionKeepsItsRecord(t *testing.T) {
	const timeout = time.Second
	expired := make(chan *session.Session, 1)
	spy := &touchSpy{Backplane: backplane.NewMemory(), extended: make(chan time.Duration, 8)}
	created := time.Now()
	_, s, bp := newTableOn(t, spy, timeout, func(s *session.Session, _ string) { expired <- s })
	s.Enter() // a stream is open here
	s.WatchIdle()
	for extensions := 0; extensions < 2 || time.Since(created) <= timeout; extensions++ {
		select {
		case ttl := <-spy.extended:
			if ttl != 2*timeout {
				t.Fatalf("a busy session's record was extended by %v, want twice the timeout", ttl)
			}
		case <-expired:
			t.Fatalf("the busy session ended after %d extensions, %v after it was created", extensions, time.Since(created))
		}
	}
	if _, err := bp.LoadSession(t.Context(), s.ID()); err != nil {
		t.Fatalf("the record of a busy session, %v after it was created: %v", time.Since(created), err)
	}
	s.Leave()
	for {
		select {
		case <-spy.extended: // the last use, to the timeout after it
		case got := <-expired:
			if got != s {
				t.Fatal("another session expired")
			}
			return
		}
	}
}

// TestSharedFieldsReachTheOtherNodes: a change made through one node
// reaches the copy another node holds, over the backplane's messages,
// without that node reading the record again.
func TestSharedFieldsReachTheOtherNodes(t *testing.T) {
	bp := backplane.NewMemory()
	t.Cleanup(func() { _ = bp.Close() })
	node := func() *session.Table {
		streams := stream.NewNode(stream.Config{Backplane: bp, BufferBytes: 1 << 20,
			WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
		tab := session.NewTable(session.Config{Backplane: bp, Streams: streams, Timeout: time.Minute, Node: "n",
			Log: zerolog.Nop(), Publish: func(m *backplane.Message) { _ = bp.Publish(context.Background(), m) }})
		stop, err := bp.Subscribe(tab.Receive)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stop()
			for _, s := range tab.All() {
				s.Stop()
			}
		})
		return tab
	}
	a, b := node(), node()
	onA, err := a.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bp.LoadSession(context.Background(), onA.ID())
	if err != nil {
		t.Fatal(err)
	}
	onB := b.Add(rec)
	if err := onB.Subscribe("file:///a", true); err != nil {
		t.Fatal(err)
	}
	if err := onB.Follow("orders", true); err != nil {
		t.Fatal(err)
	}
	if err := onB.SetLevel(mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	if err := onB.StoreJSON("cart", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	var cart []int
	if ok, err := onA.LoadJSON("cart", &cart); !ok || err != nil || len(cart) != 2 {
		t.Errorf("data on A: %v %v %v", ok, err, cart)
	}
	if !onA.Subscribed("file:///a") || !onA.Follows("orders") || onA.Level() != mcp.LevelError {
		t.Errorf("on A: subscribed %v, follows %v, level %v", onA.Subscribed("file:///a"), onA.Follows("orders"), onA.Level())
	}
	if err := onB.Subscribe("file:///a", false); err != nil {
		t.Fatal(err)
	}
	if onA.Subscribed("file:///a") {
		t.Error("the subscription ended on B is still on A")
	}
}

// TestGetStreamIsOneNodes: the GET streams of one session on two nodes
// have ids of their own, so their events, each numbered from 1, never
// share a buffer: a client resuming one on another node gets each event
// once.
func TestGetStreamIsOneNodes(t *testing.T) {
	_, s, bp := newTable(t, 0, nil)
	streams := stream.NewNode(stream.Config{Backplane: bp, Local: true, BufferBytes: 1 << 20,
		WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	other := session.NewTable(session.Config{Backplane: bp, Local: true, Streams: streams,
		Node: "n2", Log: zerolog.Nop(), Publish: func(*backplane.Message) {}})
	rec, err := bp.LoadSession(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	there := other.Add(rec)
	t.Cleanup(func() { there.Stop() })
	if a, b := s.GetStream().ID(), there.GetStream().ID(); a == b {
		t.Fatalf("both nodes' GET streams are %q", a)
	}
}

// callCount counts a shared backplane's calls that admit requests.
type callCount struct {
	backplane.Backplane
	admits, claims, loads int
}

func (c *callCount) Admit(ctx context.Context, id string, ttl time.Duration, claims, release []string) (*backplane.Session, []bool, error) {
	c.admits++
	return c.Backplane.Admit(ctx, id, ttl, claims, release)
}

func (c *callCount) ClaimRequests(ctx context.Context, id string, claims, release []string) (uint64, []bool, error) {
	c.claims++
	return c.Backplane.ClaimRequests(ctx, id, claims, release)
}

func (c *callCount) LoadSession(ctx context.Context, id string) (*backplane.Session, error) {
	c.loads++
	return c.Backplane.LoadSession(ctx, id)
}

// TestSteadyRequestsOnlyClaim: on a shared backplane, between two
// extensions of the session's life a request costs one ClaimRequests,
// which reads no record while no other node changed the session, and
// reads it when one did; an id
// that ended here stays claimed, for a request of that id here to take
// over without a claim, until maxPending of them wait, and then goes
// back with the next request.
func TestSteadyRequestsOnlyClaim(t *testing.T) {
	bp := &callCount{Backplane: backplane.NewMemory()}
	t.Cleanup(func() { _ = bp.Close() })
	streams := stream.NewNode(stream.Config{Backplane: bp, BufferBytes: 1 << 20, WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	tab := session.NewTable(session.Config{Backplane: bp, Streams: streams, Timeout: time.Hour, Node: "n1", Log: zerolog.Nop(),
		Publish: func(*backplane.Message) {}})
	s, err := tab.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	ctx := t.Context()
	request := func(id int) {
		t.Helper()
		m := &jsonrpc.Message{ID: jsonrpc.IntID(int64(id)), Method: "tools/call"}
		if err := s.Admit(ctx, []*jsonrpc.Message{m}); err != nil {
			t.Fatal(err)
		}
		if !s.Begin(m.ID, func() {}) {
			t.Fatalf("request %d did not begin", id)
		}
		s.End(m.ID)
	}
	heldElsewhere := func(id int) bool {
		_, got, err := bp.Backplane.ClaimRequests(ctx, s.ID(), []string{jsonrpc.IntID(int64(id)).Key()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return !got[0]
	}
	request(1)
	request(1) // the same id again: this node still holds its claim
	// One call each: ClaimRequests, or Admit should the second that the
	// record was created with have passed on a slow machine.
	if bp.admits+bp.claims != 2 || bp.loads != 0 {
		t.Fatalf("2 requests: %d admits, %d claims, %d loads; want 2 calls, no load", bp.admits, bp.claims, bp.loads)
	}
	if !heldElsewhere(1) {
		t.Fatal("an id was given back before maxPending waited")
	}
	for id := 2; id <= 512; id++ {
		request(id)
	}
	request(513) // gives back the 512 that ended
	if heldElsewhere(1) || heldElsewhere(512) {
		t.Fatal("the ids that ended were not given back")
	}
	// Another node changes the session: the next request reads it back.
	if err := bp.SetField(ctx, s.ID(), backplane.FieldLogLevel, json.RawMessage(`6`)); err != nil {
		t.Fatal(err)
	}
	request(600)
	if s.Level() != mcp.LevelAlert {
		t.Fatalf("after another node's change: level %s", s.Level())
	}
}

// lateChange is a shared backplane on which, while the first record read
// back is on its way, another node subscribes the session to a resource
// and says so: the record read predates the change, its message does not.
type lateChange struct {
	backplane.Backplane
	tab  *session.Table
	done bool
}

func (l *lateChange) change(ctx context.Context, id string) {
	if l.done {
		return
	}
	l.done = true
	if err := l.Backplane.SetMember(ctx, id, backplane.FieldSubscriptions, "file:///late", true, 0); err != nil {
		panic(err)
	}
	l.tab.Receive(&backplane.Message{Kind: backplane.KindMember, Session: id, Method: backplane.FieldSubscriptions,
		URI: "file:///late", Data: json.RawMessage("true")})
}

func (l *lateChange) LoadSession(ctx context.Context, id string) (*backplane.Session, error) {
	rec, err := l.Backplane.LoadSession(ctx, id)
	l.change(ctx, id)
	return rec, err
}

func (l *lateChange) Admit(ctx context.Context, id string, ttl time.Duration, claims, release []string) (*backplane.Session, []bool, error) {
	rec, got, err := l.Backplane.Admit(ctx, id, ttl, claims, release)
	l.change(ctx, id)
	return rec, got, err
}

// TestChangeDuringReadBackIsKept: a change another node tells of while
// this node reads the record back is not undone by the record, which
// predates it; the next request reads the record again.
func TestChangeDuringReadBackIsKept(t *testing.T) {
	bp := &lateChange{Backplane: backplane.NewMemory()}
	t.Cleanup(func() { _ = bp.Close() })
	streams := stream.NewNode(stream.Config{Backplane: bp, BufferBytes: 1 << 20, WriteTimeout: 5 * time.Second, Retry: time.Second, Log: zerolog.Nop()})
	bp.tab = session.NewTable(session.Config{Backplane: bp, Streams: streams, Timeout: time.Hour, Node: "n1", Log: zerolog.Nop(),
		Publish: func(*backplane.Message) {}})
	s, err := bp.tab.Create(&backplane.Session{ID: session.NewID(), Version: mcp.LatestSessionVersion}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	// Another node's change makes this node read the record back.
	if err := bp.Backplane.SetField(t.Context(), s.ID(), backplane.FieldLogLevel, json.RawMessage(`4`)); err != nil {
		t.Fatal(err)
	}
	for id := range int64(2) {
		m := &jsonrpc.Message{ID: jsonrpc.IntID(id), Method: "tools/call"}
		if err := s.Admit(t.Context(), []*jsonrpc.Message{m}); err != nil {
			t.Fatal(err)
		}
		if !s.Subscribed("file:///late") {
			t.Fatalf("request %d: the change told while the record was read back was lost", id)
		}
	}
	if s.Level() != mcp.LevelError {
		t.Fatalf("level %s, want the one another node set before", s.Level())
	}
}
