// Package session holds what one node knows of a session-era MCP session:
// the live things that cannot be shared (requests running here, server
// requests waiting here, streams produced here, a GET stream attached
// here) and a cached copy of the session record the backplane shares
// between nodes; and, as a Cluster, how a node finds, keeps and ends
// sessions that every node of a deployment shares.
package session

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Why a session ended: the root exports these as EndClient, EndTimeout,
// EndShutdown and EndError.
const (
	EndClient   = "client"   // the client sent DELETE
	EndTimeout  = "timeout"  // idle longer than the session timeout
	EndShutdown = "shutdown" // the router shut down
	EndError    = "error"    // the session could not go on (its shared state was lost)
)

// Session is a session as this node holds it. Its methods are safe for
// concurrent use.
type Session struct {
	t         *Table
	id        string
	version   string
	client    mcp.Implementation
	caps      mcp.ClientCapabilities
	principal string
	ctx       context.Context
	cancel    context.CancelFunc
	release   func()               // gives back the creator's share of its per-caller limit; nil when created elsewhere
	drop      func(*stream.Stream) // DropStream, bound once rather than per stream

	lastActive atomic.Int64  // unix nanoseconds, of this node's last use
	extended   atomic.Int64  // unix nanoseconds, of the use the shared record was last extended for
	rev        atomic.Uint64 // the shared record's revision this node's copy is of
	due        atomic.Int64  // unix nanoseconds, of the next idle check; 0: not watched
	busy       atomic.Int32  // attached connections and running requests here
	logLevel   atomic.Int32  // mcp severity
	access     atomic.Value  // connect's decisions from the latest request, for notifications

	mu        sync.Mutex
	ended     bool
	inflight  map[string]inflight              // held by value: one allocation fewer per request
	waiting   map[string]chan *jsonrpc.Message // server->client requests awaiting an answer
	streams   map[string]*stream.Stream
	getStream *stream.Stream // the standalone GET stream, once a client opened it here
	lists     *[2][]string   // resource subscriptions and application topics (see Follow); nil: none, as most sessions
	data      map[string]json.RawMessage
	adm       *admission // on a shared backplane: claims and releases between Admits
	changes   uint64     // of the shared fields here, made here or told by other nodes (see refresh)
}

// inflight is a request being answered.
type inflight struct {
	cancel    context.CancelFunc
	release   func() // of the request's lease entry
	cancelled bool   // by the client: its answer is not sent
}

// NewID returns 128 random bits as URL-safe text: visible ASCII, as the
// transport requires of session ids, and unguessable.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidID reports whether id could be one NewID issued: 22 characters of
// the URL-safe base64 alphabet.
func ValidID(id string) bool {
	if len(id) != 22 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// newSession builds this node's side of a session from its shared record.
func (t *Table) newSession(rec *backplane.Session) *Session {
	s := &Session{t: t, id: rec.ID, version: rec.Version, principal: rec.Principal}
	_ = json.Unmarshal(rec.Client, &s.client)
	_ = json.Unmarshal(rec.Capabilities, &s.caps)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.drop = s.DropStream
	s.Refresh(rec)
	s.Touch()
	return s
}

// ID returns the session id.
func (s *Session) ID() string { return s.id }

// Version returns the negotiated protocol version.
func (s *Session) Version() string { return s.version }

// Principal returns the caller that created the session, or "".
func (s *Session) Principal() string { return s.principal }

// Client returns the client's implementation info.
func (s *Session) Client() mcp.Implementation { return s.client }

// Capabilities returns the client's capabilities.
func (s *Session) Capabilities() mcp.ClientCapabilities { return s.caps }

// ClientCapabilities points at the capabilities the client declared, for
// reading without a copy; nobody writes them after the session starts.
func (s *Session) ClientCapabilities() *mcp.ClientCapabilities { return &s.caps }

// Context is cancelled when this node's side of the session ends.
func (s *Session) Context() context.Context { return s.ctx }

// SetAccess keeps connect's decisions from the latest request, for the
// notifications the session gets between requests.
func (s *Session) SetAccess(a any) { s.access.Store(a) }

// Access returns what SetAccess kept, or nil.
func (s *Session) Access() any { return s.access.Load() }

// Refresh takes the shared fields from a freshly loaded record.
func (s *Session) Refresh(rec *backplane.Session) {
	s.mu.Lock()
	s.take(rec)
	s.mu.Unlock()
}

// take takes the shared fields from rec; s.mu held.
func (s *Session) take(rec *backplane.Session) {
	s.logLevel.Store(int32(rec.LogLevel))
	s.data, s.lists = rec.Data, nil
	if len(rec.Subscriptions)+len(rec.Topics) > 0 {
		s.lists = &[2][]string{rec.Subscriptions, rec.Topics}
	}
	s.rev.Store(rec.Revision)
}

// changeCount returns how many changes of the shared fields this node's
// copy took so far, for refresh.
func (s *Session) changeCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes
}

// refresh takes the shared fields from rec, read back when the copy had
// taken before changes, unless it took more since: rec may predate them
// (a change made here, or another node's message, that came while rec was
// on its way), and the copy would lose them. It reports whether it took
// rec; if not, the copy keeps its revision, and the next request reads
// the record back again.
func (s *Session) refresh(rec *backplane.Session, before uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changes != before {
		return false
	}
	s.take(rec)
	return true
}

// Touch marks the session used now.
func (s *Session) Touch() { s.lastActive.Store(time.Now().UnixNano()) }

// Extend keeps the session alive for a request: its shared record lives
// for the timeout from now, and the session is marked used now. It fails
// with backplane.ErrNotFound for a record that expired meanwhile.
func (s *Session) Extend(ctx context.Context) error { return s.extend(ctx, s.t.cfg.Timeout, true) }

// extend makes the shared record live for ttl from now; used marks the
// session used now. Marked after the call, the last use is never older
// than the record's extension, so the idle check sees the record expire.
func (s *Session) extend(ctx context.Context, ttl time.Duration, used bool) error {
	if err := s.t.cfg.Backplane.TouchSession(ctx, s.id, ttl); err != nil {
		return err
	}
	now := time.Now().UnixNano()
	if used {
		s.lastActive.Store(now)
	}
	s.extended.Store(now)
	return nil
}

// Enter marks the session busy (a request or stream is live here) until
// the matching Leave: a busy session does not time out.
func (s *Session) Enter() { s.busy.Add(1) }

// Leave ends what Enter began and marks the session used now.
func (s *Session) Leave() { s.busy.Add(-1); s.Touch() }

// Level returns the least severe log level the client wants.
func (s *Session) Level() mcp.LoggingLevel { return levels[s.logLevel.Load()] }

var levels = [...]mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
	mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

// SetLevel sets the log level, here and in the backplane.
func (s *Session) SetLevel(l mcp.LoggingLevel) error {
	s.mu.Lock()
	s.logLevel.Store(int32(l.Severity()))
	s.changes++
	s.mu.Unlock()
	return s.setField(backplane.FieldLogLevel, l.Severity())
}

// setField changes a shared field in the backplane and, on a shared one,
// tells the other nodes, so that the copies they hold stay current
// without a read per notification.
func (s *Session) setField(field string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	ctx, cancel := s.t.cfg.Streams.Context()
	defer cancel()
	if err := s.t.cfg.Backplane.SetField(ctx, s.id, field, raw); err != nil {
		return err
	}
	if !s.t.cfg.Local {
		s.t.cfg.Publish(&backplane.Message{Kind: backplane.KindField, Session: s.id, Method: field, Data: raw})
	}
	return nil
}

// applyField takes a shared field another node changed (setField).
func (s *Session) applyField(field string, raw json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case field == backplane.FieldLogLevel:
		var l int32
		if json.Unmarshal(raw, &l) == nil {
			s.logLevel.Store(l)
			s.changes++
		}
	case strings.HasPrefix(field, backplane.DataField("")):
		if s.data == nil {
			s.data = map[string]json.RawMessage{}
		}
		s.data[strings.TrimPrefix(field, backplane.DataField(""))] = raw
		s.changes++
	}
}

// Store sets the session data under key, here and in the backplane.
func (s *Session) Store(key string, raw json.RawMessage) error {
	if err := s.setField(backplane.DataField(key), raw); err != nil {
		return err
	}
	s.mu.Lock()
	if s.data == nil {
		s.data = map[string]json.RawMessage{}
	}
	s.data[key] = raw
	s.changes++
	s.mu.Unlock()
	return nil
}

// Load returns the session data under key.
func (s *Session) Load(key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.data[key]
	return raw, ok
}

// StoreJSON stores value, encoded as JSON, under key (Store).
func (s *Session) StoreJSON(key string, value any) error {
	raw, err := json.Marshal(value)
	if err == nil {
		err = s.Store(key, raw)
	}
	if err != nil {
		return fmt.Errorf("specter: session data %q: %w", key, err)
	}
	return nil
}

// LoadJSON decodes the data under key into dst and reports whether there
// was any.
func (s *Session) LoadJSON(key string, dst any) (bool, error) {
	raw, ok := s.Load(key)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, fmt.Errorf("specter: session data %q: %w", key, err)
	}
	return true, nil
}

// Subscribe adds uri to the session's resource subscriptions (on) or
// removes it, here and in the backplane. An add past the table's
// MaxSubscriptions is backplane.ErrTooMany.
func (s *Session) Subscribe(uri string, on bool) error {
	return s.toggle(subscriptions, backplane.FieldSubscriptions, uri, on)
}

// Subscribed reports whether the session is subscribed to uri.
func (s *Session) Subscribed(uri string) bool { return s.has(subscriptions, uri) }

// Follow subscribes the session to an application topic (on) or ends the
// subscription, here and in the backplane.
func (s *Session) Follow(topic string, on bool) error {
	return s.toggle(topics, backplane.FieldTopics, topic, on)
}

// Follows reports whether the session is subscribed to topic.
func (s *Session) Follows(topic string) bool { return s.has(topics, topic) }

// Subscriptions returns the URIs the session is subscribed to.
func (s *Session) Subscriptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list(subscriptions))
}

// The session's lists, indexes of Session.lists.
const (
	subscriptions = iota
	topics
)

// list returns list i; s.mu held.
func (s *Session) list(i int) []string {
	if s.lists == nil {
		return nil
	}
	return s.lists[i]
}

// toggle adds v to list i (on) or removes it, in the backplane, which
// writes that one member (never the whole list, which would cost writes
// quadratic in its length), then here; on a shared backplane the other
// nodes are told of that member.
func (s *Session) toggle(i int, field, v string, on bool) error {
	limit := 0
	if i == subscriptions {
		limit = s.t.cfg.MaxSubscriptions
	}
	ctx, cancel := s.t.cfg.Streams.Context()
	defer cancel()
	if err := s.t.cfg.Backplane.SetMember(ctx, s.id, field, v, on, limit); err != nil {
		return err
	}
	s.applyMember(i, v, on)
	if !s.t.cfg.Local {
		data := json.RawMessage("false")
		if on {
			data = json.RawMessage("true")
		}
		s.t.cfg.Publish(&backplane.Message{Kind: backplane.KindMember, Session: s.id, Method: field, URI: v, Data: data})
	}
	return nil
}

// applyMember adds v to list i (on) or removes it, here. The list is
// replaced, never changed in place: Refresh hands the record's own
// slices over.
func (s *Session) applyMember(i int, v string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes++
	cur := s.list(i)
	if slices.Contains(cur, v) == on {
		return
	}
	out := make([]string, 0, len(cur)+1)
	for _, u := range cur {
		if u != v {
			out = append(out, u)
		}
	}
	if on {
		out = append(out, v)
	}
	if s.lists == nil {
		s.lists = new([2][]string)
	}
	s.lists[i] = out
}

func (s *Session) has(i int, v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.list(i), v)
}

// Stop ends this node's side of the session: requests running here are
// cancelled, streams produced here stopped and the session leaves the
// table. It reports whether it was the call that stopped it.
func (s *Session) Stop() bool {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return false
	}
	s.ended = true
	streams := make([]*stream.Stream, 0, len(s.streams)+1)
	for _, o := range s.streams {
		streams = append(streams, o)
	}
	if s.getStream != nil {
		streams = append(streams, s.getStream)
	}
	s.streams = nil
	s.mu.Unlock()
	s.cancel()
	for _, o := range streams {
		o.Stop()
	}
	s.t.remove(s.id)
	if s.release != nil {
		s.release()
	}
	return true
}
