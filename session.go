package specter

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Why a session ended.
const (
	EndClient     = "client"     // the client sent DELETE
	EndTimeout    = "timeout"    // idle longer than the session timeout
	EndShutdown   = "shutdown"   // the router shut down
	EndDisconnect = "disconnect" // reserved for transports that end sessions with the connection
)

// session is one initialize handshake and what follows it.
type session struct {
	r         *Router
	id        string
	version   string
	client    mcp.Implementation
	caps      mcp.ClientCapabilities
	principal string
	ctx       context.Context
	cancel    context.CancelFunc

	lastActive atomic.Int64 // unix nanoseconds
	busy       atomic.Int32 // attached connections and running requests
	logLevel   atomic.Int32 // mcp severity
	nextID     atomic.Int64 // server->client request ids and stream ids

	mu       sync.Mutex
	ended    bool
	inflight map[string]*inflight
	waiting  map[string]chan *jsonrpc.Message // server->client requests awaiting an answer
	streams  map[string]*outbox
	listen   *outbox // the standalone GET stream
	subs     map[string]struct{}
	scope    *scope // connect's decisions from the latest request, for notifications
	data     map[string]any
	timer    *time.Timer
}

// newSessionID returns 128 random bits as URL-safe text: visible ASCII, as
// the transport requires, and unguessable.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (s *session) touch() { s.lastActive.Store(time.Now().UnixNano()) }

func (s *session) level() mcp.LoggingLevel {
	return levels[s.logLevel.Load()]
}

var levels = [...]mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
	mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

// newStream registers a new POST answer stream.
func (s *session) newStream() *outbox {
	o := newOutbox(s.r, s, strconv.FormatInt(s.nextID.Add(1), 36), false)
	s.mu.Lock()
	if !s.ended {
		s.streams[o.id] = o
	}
	s.mu.Unlock()
	return o
}

func (s *session) dropStream(o *outbox) {
	if s == nil {
		o.stop()
		return
	}
	s.mu.Lock()
	delete(s.streams, o.id)
	s.mu.Unlock()
	o.stop()
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
		s.listen = newOutbox(s.r, s, "g"+strconv.FormatInt(s.nextID.Add(1), 36), true)
	}
	return s.listen
}

// notify sends a message on the standalone stream if the client ever
// opened one; otherwise there is no channel for it.
func (s *session) notify(data []byte) {
	s.mu.Lock()
	l := s.listen
	s.mu.Unlock()
	if l != nil {
		l.send(data, false)
	}
}

// inflight is a request being answered.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: its answer is not sent
}

// begin registers an in-flight request id; it fails for an id already in
// flight, which would make answers ambiguous.
func (s *session) begin(id jsonrpc.ID, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id.Key()]; dup || s.ended {
		return false
	}
	s.inflight[id.Key()] = &inflight{cancel: cancel}
	s.busy.Add(1)
	return true
}

// end unregisters a request and reports whether the client cancelled it.
func (s *session) end(id jsonrpc.ID) (cancelled bool) {
	s.mu.Lock()
	f, ok := s.inflight[id.Key()]
	delete(s.inflight, id.Key())
	s.mu.Unlock()
	if !ok {
		return false
	}
	f.cancel()
	s.busy.Add(-1)
	s.touch()
	return f.cancelled
}

// cancelRequest cancels an in-flight request (notifications/cancelled).
func (s *session) cancelRequest(id jsonrpc.ID) {
	s.mu.Lock()
	f := s.inflight[id.Key()]
	if f != nil {
		f.cancelled = true
	}
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
}

// await registers a server->client request id and returns where its
// answer will arrive.
func (s *session) await() (jsonrpc.ID, chan *jsonrpc.Message) {
	id := jsonrpc.IntID(s.nextID.Add(1))
	ch := make(chan *jsonrpc.Message, 1)
	s.mu.Lock()
	s.waiting[id.Key()] = ch
	s.mu.Unlock()
	return id, ch
}

func (s *session) forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.waiting, id.Key())
	s.mu.Unlock()
}

// deliver routes a client's answer to the request waiting for it.
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

func (s *session) subscribe(uri string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.subs[uri] = struct{}{}
	} else {
		delete(s.subs, uri)
	}
}

func (s *session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subs[uri]
	return ok
}

// terminate ends the session: its requests are cancelled and its streams
// closed. It reports false if the session had already ended.
func (s *session) terminate(reason string) bool {
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
	s.r.log.Debug().Str("session", s.id).Str("reason", reason).Msg("mcp session ended")
	if h := s.r.cfg.onSessionEnd; h != nil {
		h(s.id, reason)
	}
	return true
}

// watchIdle ends the session once it has been idle for the timeout.
func (s *session) watchIdle() {
	d := s.r.cfg.sessionTimeout
	if d <= 0 {
		return
	}
	s.mu.Lock()
	s.timer = time.AfterFunc(d, s.checkIdle)
	s.mu.Unlock()
}

func (s *session) checkIdle() {
	d := s.r.cfg.sessionTimeout
	idle := time.Since(time.Unix(0, s.lastActive.Load()))
	if s.busy.Load() > 0 || idle < d {
		wait := d - idle
		if wait <= 0 {
			wait = d
		}
		s.mu.Lock()
		if !s.ended {
			s.timer.Reset(wait)
		}
		s.mu.Unlock()
		return
	}
	s.terminate(EndTimeout)
}

// sessionTable holds the live sessions of a router.
type sessionTable struct {
	mu sync.RWMutex
	m  map[string]*session
}

func (t *sessionTable) get(id string) *session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[id]
}

func (t *sessionTable) put(s *session, limit int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if limit > 0 && len(t.m) >= limit {
		return false
	}
	t.m[s.id] = s
	return true
}

func (t *sessionTable) remove(id string) {
	t.mu.Lock()
	delete(t.m, id)
	t.mu.Unlock()
}

func (t *sessionTable) all() []*session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]*session, 0, len(t.m))
	for _, s := range t.m {
		out = append(out, s)
	}
	return out
}

func (t *sessionTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}

func supportsPriming(v string) bool { return mcp.SupportsPriming(v) }
