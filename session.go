package specter

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Why a session ended, as OnTerminate is told.
const (
	EndClient     = "client"     // the client sent DELETE
	EndTimeout    = "timeout"    // idle longer than the session timeout
	EndShutdown   = "shutdown"   // the router shut down
	EndDisconnect = "disconnect" // the transport lost the client for good
	EndError      = "error"      // the session could not go on (its shared state was lost)
)

// session is a session-era MCP session as this node holds it: the live
// things that cannot be shared (requests running here, server requests
// waiting here, streams produced here, a GET stream attached here) and a
// cached copy of the session record the backplane shares between nodes.
type session struct {
	r         *Router
	id        string
	version   string
	client    mcp.Implementation
	caps      mcp.ClientCapabilities
	principal string
	ctx       context.Context
	cancel    context.CancelFunc

	lastActive atomic.Int64 // unix nanoseconds, of this node's last use
	busy       atomic.Int32 // attached connections and running requests here
	logLevel   atomic.Int32 // mcp severity

	mu       sync.Mutex
	ended    bool
	inflight map[string]*inflight
	waiting  map[string]chan *jsonrpc.Message // server->client requests awaiting an answer
	streams  map[string]*outbox
	listen   *outbox // the standalone GET stream, when attached here
	subs     []string
	data     map[string]json.RawMessage
	scope    *scope // connect's decisions from the latest request, for notifications
	timer    *time.Timer
}

// inflight is a request being answered.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: its answer is not sent
}

// randomID returns 128 random bits as URL-safe text: visible ASCII, as
// the transport requires of session ids, and unguessable.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newLocal builds this node's side of a session from its shared record.
func (r *Router) newLocal(rec *backplane.Session) *session {
	s := &session{r: r, id: rec.ID, version: rec.Version, principal: rec.Principal}
	_ = json.Unmarshal(rec.Client, &s.client)
	_ = json.Unmarshal(rec.Capabilities, &s.caps)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.refresh(rec)
	s.touch()
	return s
}

// refresh takes the shared fields from a freshly loaded record.
func (s *session) refresh(rec *backplane.Session) {
	s.logLevel.Store(int32(rec.LogLevel))
	s.mu.Lock()
	s.subs, s.data = rec.Subscriptions, rec.Data
	s.mu.Unlock()
}

func (s *session) touch() { s.lastActive.Store(time.Now().UnixNano()) }

func (s *session) level() mcp.LoggingLevel { return levels[s.logLevel.Load()] }

var levels = [...]mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
	mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

// setField changes a shared field, here and in the backplane.
func (s *session) setField(field string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	ctx, cancel := s.r.bpContext()
	defer cancel()
	return s.r.bp.SetField(ctx, s.id, field, raw)
}

// uniqueID returns an id unique across the nodes of the deployment: this
// node's id and a counter.
func (s *session) uniqueID(prefix string) string {
	return prefix + s.r.node + strconv.FormatUint(uint64(s.r.counter.Add(1)), 36)
}

// newStream registers a new POST answer stream produced on this node.
func (s *session) newStream() *outbox {
	o := newOutbox(s.r, s, s.uniqueID("p"), false)
	s.mu.Lock()
	if !s.ended {
		if s.streams == nil {
			s.streams = map[string]*outbox{}
		}
		s.streams[o.id] = o
	}
	s.mu.Unlock()
	return o
}

// dropStream forgets a stream: it was delivered, or nobody can ask for it.
// A delivered stream's buffer stays a while: written to the socket is not
// read by the client, which may have hung up just then and resume.
func (s *session) dropStream(o *outbox) {
	if s == nil {
		o.stop()
		return
	}
	s.mu.Lock()
	delete(s.streams, o.id)
	s.mu.Unlock()
	o.stop()
	if o.persisted {
		s.r.dropBufferLater(s.id, o.id)
	}
}

func (s *session) stream(id string) *outbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listen != nil && s.listen.id == id {
		return s.listen
	}
	return s.streams[id]
}

// listener returns the standalone stream, creating it on first use.
func (s *session) listener() *outbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listen == nil {
		s.listen = newOutbox(s.r, s, "g"+s.id[:8], true)
	}
	return s.listen
}

// notify sends a message on the standalone stream if the client opened
// one here; otherwise there is no channel for it on this node.
func (s *session) notify(data []byte) {
	s.mu.Lock()
	l := s.listen
	s.mu.Unlock()
	if l != nil {
		l.notice(data)
	}
}

// begin registers an in-flight request id. It fails for an id already in
// flight in the session, on any node: answers would be ambiguous.
func (s *session) begin(id jsonrpc.ID, cancel context.CancelFunc) bool {
	if !s.r.local {
		// Other nodes may run requests of this session too.
		ctx, done := s.r.bpContext()
		defer done()
		if ok, err := s.r.bp.Claim(ctx, s.claimKey(id), 24*time.Hour); err != nil || !ok {
			return false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id.Key()]; dup || s.ended {
		return false
	}
	if s.inflight == nil {
		s.inflight = map[string]*inflight{}
	}
	s.inflight[id.Key()] = &inflight{cancel: cancel}
	s.busy.Add(1)
	return true
}

func (s *session) claimKey(id jsonrpc.ID) string { return "req:" + s.id + ":" + id.Key() }

// end unregisters a request and reports whether the client cancelled it.
func (s *session) end(id jsonrpc.ID) (cancelled bool) {
	s.mu.Lock()
	f, ok := s.inflight[id.Key()]
	delete(s.inflight, id.Key())
	s.mu.Unlock()
	if !ok {
		return false
	}
	if !s.r.local {
		ctx, done := s.r.bpContext()
		defer done()
		_ = s.r.bp.Release(ctx, s.claimKey(id))
	}
	f.cancel()
	s.busy.Add(-1)
	s.touch()
	return f.cancelled
}

// cancelRequest cancels a request running here (notifications/cancelled)
// and reports whether it was found.
func (s *session) cancelRequest(id jsonrpc.ID) bool {
	s.mu.Lock()
	f := s.inflight[id.Key()]
	if f != nil {
		f.cancelled = true
	}
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
	return f != nil
}

// await registers a server->client request id and returns where its
// answer will arrive.
func (s *session) await() (jsonrpc.ID, chan *jsonrpc.Message) {
	id := jsonrpc.StringID(s.uniqueID("s"))
	ch := make(chan *jsonrpc.Message, 1)
	s.mu.Lock()
	if s.waiting == nil {
		s.waiting = map[string]chan *jsonrpc.Message{}
	}
	s.waiting[id.Key()] = ch
	s.mu.Unlock()
	return id, ch
}

func (s *session) forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.waiting, id.Key())
	s.mu.Unlock()
}

// deliver routes a client's answer to the request waiting for it here.
func (s *session) deliver(m *jsonrpc.Message) bool {
	s.mu.Lock()
	ch, ok := s.waiting[m.ID.Key()]
	delete(s.waiting, m.ID.Key())
	s.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}

func (s *session) subscribe(uri string, on bool) error {
	s.mu.Lock()
	subs := make([]string, 0, len(s.subs)+1)
	for _, u := range s.subs {
		if u != uri {
			subs = append(subs, u)
		}
	}
	if on {
		subs = append(subs, uri)
	}
	s.subs = subs
	s.mu.Unlock()
	return s.setField(backplane.FieldSubscriptions, subs)
}

func (s *session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.subs {
		if u == uri {
			return true
		}
	}
	return false
}

// stopLocal ends this node's side of the session: requests running here
// are cancelled and streams attached here closed.
func (s *session) stopLocal() bool {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return false
	}
	s.ended = true
	streams := make([]*outbox, 0, len(s.streams)+1)
	for _, o := range s.streams {
		streams = append(streams, o)
	}
	if s.listen != nil {
		streams = append(streams, s.listen)
	}
	s.streams = nil
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.cancel()
	for _, o := range streams {
		o.stop()
	}
	s.r.sessions.remove(s.id)
	return true
}

// watchIdle checks the session once it has been idle here for the timeout.
func (s *session) watchIdle() {
	d := s.r.cfg.sessionTimeout
	if d <= 0 {
		return
	}
	s.mu.Lock()
	s.timer = time.AfterFunc(d, s.checkIdle)
	s.mu.Unlock()
}

// checkIdle keeps a busy session alive, and otherwise lets this node
// forget it; if the shared record expired too, the session has ended.
func (s *session) checkIdle() {
	d := s.r.cfg.sessionTimeout
	idle := time.Since(time.Unix(0, s.lastActive.Load()))
	ctx, cancel := s.r.bpContext()
	defer cancel()
	if s.busy.Load() > 0 || idle < d {
		if s.busy.Load() > 0 {
			// Work or a stream is live here: the session is in use.
			_ = s.r.bp.TouchSession(ctx, s.id, d)
			s.touch()
			idle = 0
		}
		s.mu.Lock()
		if !s.ended {
			s.timer.Reset(d - idle)
		}
		s.mu.Unlock()
		return
	}
	if _, err := s.r.bp.LoadSession(ctx, s.id); errors.Is(err, backplane.ErrNotFound) {
		s.r.finish(s, EndTimeout)
		return
	} else if err != nil {
		s.mu.Lock()
		if !s.ended {
			s.timer.Reset(d) // the backplane is down; look again later
		}
		s.mu.Unlock()
		return
	}
	// Another node served it since: this node just lets go.
	s.stopLocal()
}

// sessionTable holds the sessions this node has live state for.
type sessionTable struct {
	mu sync.RWMutex
	m  map[string]*session
}

func (t *sessionTable) get(id string) *session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[id]
}

// put adds s unless the node already holds the session, and returns the
// one held.
func (t *sessionTable) put(s *session) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.m[s.id]; old != nil {
		return old
	}
	t.m[s.id] = s
	return s
}

func (t *sessionTable) remove(id string) {
	t.mu.Lock()
	delete(t.m, id)
	if len(t.m) == 0 {
		t.m = map[string]*session{} // maps keep their peak size; start small again
	}
	t.mu.Unlock()
}

func (t *sessionTable) all() []*session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Collect(maps.Values(t.m))
}

func (t *sessionTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}
