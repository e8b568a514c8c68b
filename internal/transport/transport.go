// Package transport is the Streamable HTTP transport of both MCP eras:
// reading and checking POST bodies, sessions' POST/GET/DELETE, 2026-07-28
// requests and subscriptions/listen streams, per-caller quotas and batch
// budgets. It knows nothing of the root package: what a connect step
// yields (C) and what is done with a request are the Host's.
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-ID"
)

// Host is what serves the requests the transport reads: the root's
// router, with C the result of its connect step.
type Host[C any] interface {
	// Connect runs the connect step; on refusal it writes the answer
	// and returns false. client is what the caller's client declared it
	// can do (its session's, its initialize's or its _meta's), or nil.
	Connect(w http.ResponseWriter, req *http.Request, id jsonrpc.ID, client *mcp.ClientCapabilities) (C, bool)
	// Principal is who the caller is; "" for an anonymous one.
	Principal(c C) string
	// Holder names who the caller counts against under the quotas (see
	// CallerKey).
	Holder(c C) string
	// Grant is what the caller may see, stored with sessions and
	// listeners.
	Grant(c C) any
	// Dispatch runs request m and answers it on ob.
	Dispatch(c C, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message, call *stateless.Call)
	// Refuse answers request m on ob with e, its own error.
	Refuse(c C, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message, e *jsonrpc.Error)
	// StartSession runs what starts session s for c and returns the
	// initialize result; on error the session is ended.
	StartSession(c C, s *session.Session) (*mcp.InitializeResult, error)
	// CheckParamHeaders checks the Mcp-Param-* headers of a tools/call.
	CheckParamHeaders(h http.Header, c C, tool string, args json.RawMessage) *jsonrpc.Error
	// ServeTask answers tasks/get, tasks/update and tasks/cancel.
	ServeTask(w http.ResponseWriter, c C, m *jsonrpc.Message, call *stateless.Call, p *stateless.Params)
}

// Config is the transport's settings and the node's shared parts.
type Config struct {
	MaxBody     int64         // largest body; larger gets 413
	BodyTimeout time.Duration // how long a body may take; 0 is no bound
	MaxSessions int           // sessions this node holds; 0 is no cap
	LogLevel    int           // new sessions' log severity
	Versions    Versions      // the revisions offered
	Quotas      Quotas
	// MaxSubscriptions caps the resources a listen filter names; 0 is no cap.
	MaxSubscriptions int
	Closing          *atomic.Bool // set when the router shuts down
	Sessions         *session.Table
	Cluster          *session.Cluster
	Streams          *stream.Node
	Report           func(ctx context.Context, err error) // errors only the server sees
}

// Transport serves the MCP endpoint for a Host.
type Transport[C any] struct {
	cfg       Config
	host      Host[C]
	Listeners Listeners // open subscriptions/listen streams
}

// New returns a transport serving requests for h.
func New[C any](cfg Config, h Host[C]) *Transport[C] {
	return &Transport[C]{cfg: cfg, host: h, Listeners: Listeners{m: map[*Listener]struct{}{}}}
}

// ServeHTTP serves POST, GET and DELETE; other methods get 405.
func (t *Transport[C]) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.Method {
	case http.MethodPost:
		t.servePost(w, req)
	case http.MethodGet:
		t.serveGet(w, req)
	case http.MethodDelete:
		t.serveDelete(w, req)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		refusal.AbandonBody(w, req)
		refusal.Write(w, nil, refusal.MethodNotAllowed)
	}
}

// bodyPool recycles the buffers small bodies are read into.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer put back in bodyPool: a pool
// of buffers sized for the largest bodies would keep what one burst of
// them took.
const maxPooledBody = 64 << 10

// putBody gives a body's buffer back once the body is parsed: the parsed
// messages hold copies of what they keep, so a handler that waits long
// (for a client's answer) pins no body, however large.
func putBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		bodyPool.Put(buf)
	}
}

func (t *Transport[C]) servePost(w http.ResponseWriter, req *http.Request) {
	if !stream.IsMediaType(req.Header.Get("Content-Type"), "application/json") {
		refusal.AbandonBody(w, req)
		refusal.Write(w, nil, refusal.UnsupportedMediaType)
		return
	}
	if accept := req.Header.Get("Accept"); !stream.Accepts(accept, "application/json") || !stream.Accepts(accept, "text/event-stream") {
		refusal.AbandonBody(w, req)
		refusal.Write(w, nil, refusal.NotAcceptable)
		return
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	if !t.readBody(w, req, buf) {
		putBody(buf)
		return
	}
	msgs, batch, err := jsonrpc.Parse(buf.Bytes())
	putBody(buf)
	if err != nil {
		refusal.Write(w, nil, refusal.BadRequest(err.(*jsonrpc.Error)))
		return
	}
	// Without a stateless revision to offer, the server answers such a
	// request as a session-only server does.
	if len(t.cfg.Versions.Stateless) > 0 && stateless.Is(req.Header.Get(HeaderSessionID), req.Header.Get(HeaderProtocolVersion), msgs) {
		t.serveStateless(w, req, msgs, batch)
		return
	}

	// An initialize is read once, before connect, which may look at the
	// client's capabilities; a bad one is refused after connect, as any
	// bad request of a caller connect may refuse.
	var init *initialize
	if len(msgs) == 1 && msgs[0].Method == mcp.MethodInitialize && req.Header.Get(HeaderSessionID) == "" {
		init = &initialize{}
		init.p, init.err = methods.DecodeInitialize(msgs[0].Params)
	}
	sess, c, ok := t.sessionFor(w, req, msgs, init)
	if !ok {
		return
	}
	if sess == nil {
		t.postWithoutSession(w, req, c, msgs, batch, init)
		return
	}
	if batch && !mcp.AllowsBatch(sess.Version()) {
		refusal.Write(w, nil, refusal.BatchNotSupported(sess.Version()))
		return
	}
	sess.SetAccess(t.host.Grant(c))

	requests := 0
	for _, m := range msgs {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			requests++
			m.Params = methods.Compact(m.Params)
		case jsonrpc.KindNotification:
			sess.Notification(m)
			reqctx.Note(req.Context(), reqctx.Message{Method: m.Method, Session: sess.ID(), Principal: t.host.Principal(c)})
		default:
			sess.Answer(m)
			reqctx.Note(req.Context(), reqctx.Message{Method: "response", ID: string(m.ID), Session: sess.ID(), Principal: t.host.Principal(c)})
		}
	}
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ob := sess.NewStream(msgs, requests, batch)
	gen := ob.AttachPOST(w)
	sess.Enter()
	defer sess.Leave()
	further := false // the first request came in on the HTTP request's token
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			if !further || t.withinBudget(req, c, sess, ob, m) {
				t.host.Dispatch(c, sess, ob, m, nil)
			}
			further = true
		}
	}
	sess.Unclaim(msgs)
	if ob.Await(w, req, gen, batch) {
		sess.DropStream(ob)
	}
}

// withinBudget takes a token for m, a further request of a batch, from the
// budget a rate limit (middleware.RateLimit) gave the HTTP request, whose
// own token admitted its first request. Without a token it answers m on
// ob with a rate-limit error, so that every request of the batch is
// answered but only those within the limit run, and returns false.
func (t *Transport[C]) withinBudget(req *http.Request, c C, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message) bool {
	ok, wait := reqctx.TakeBudget(req.Context())
	if !ok {
		t.host.Refuse(c, sess, ob, m, refusal.TooManyMessages(refusal.RetrySeconds(wait)))
	}
	return ok
}

// initialize is the params of an initialize request, read before connect.
type initialize struct {
	p   *mcp.InitializeParams
	err error
}

// postWithoutSession serves a POST that names no session: initialize, or
// notifications a client may send before it has one.
func (t *Transport[C]) postWithoutSession(w http.ResponseWriter, req *http.Request, c C, msgs []*jsonrpc.Message, batch bool, init *initialize) {
	if init != nil {
		t.initialize(w, req, c, msgs[0], init)
		return
	}
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			refused := refusal.SessionRequired
			if m.Method == mcp.MethodInitialize {
				refused = refusal.InitializeInBatch
			}
			refusal.Write(w, m.ID, refused)
			return
		}
	}
	// Notifications (such as notifications/initialized from a client that
	// got no session id) have nothing to act on.
	w.WriteHeader(http.StatusAccepted)
}

func (t *Transport[C]) initialize(w http.ResponseWriter, req *http.Request, c C, m *jsonrpc.Message, init *initialize) {
	start := time.Now()
	p, err := init.p, init.err
	if err != nil {
		refusal.Write(w, m.ID, refusal.BadRequest(err.(*jsonrpc.Error)))
		return
	}
	if t.cfg.Closing.Load() {
		refusal.Write(w, m.ID, refusal.ShuttingDown)
		return
	}
	if t.cfg.MaxSessions > 0 && t.cfg.Sessions.Len() >= t.cfg.MaxSessions {
		refusal.Write(w, m.ID, refusal.TooManySessions)
		return
	}
	version, refused := t.cfg.Versions.Negotiate(p.ProtocolVersion)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	holder := t.host.Holder(c)
	release, refused := t.cfg.Quotas.session(holder)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	client, _ := json.Marshal(p.ClientInfo)
	caps, _ := json.Marshal(p.Capabilities)
	rec := &backplane.Session{ID: session.NewID(), Version: version, Principal: t.host.Principal(c),
		Client: client, Capabilities: caps, LogLevel: t.cfg.LogLevel, Created: time.Now()}
	s, err := t.cfg.Sessions.Create(rec, release)
	if err != nil {
		t.cfg.Report(req.Context(), err)
		refusal.Write(w, m.ID, refusal.StorageUnavailable)
		return
	}
	if refused := t.cfg.Quotas.sessionCreated(holder, rec.ID); refused != nil {
		// Nobody saw the session: it goes without an end to report.
		if err := t.cfg.Sessions.Discard(s); err != nil {
			t.cfg.Report(req.Context(), err)
		}
		refusal.Write(w, m.ID, refused)
		return
	}
	s.SetAccess(t.host.Grant(c))
	res, err := t.host.StartSession(c, s)
	if err != nil {
		refusal.Write(w, m.ID, refusal.Internal)
		return
	}
	s.WatchIdle()
	body, _ := json.Marshal(res)
	w.Header().Set(HeaderSessionID, s.ID())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
	reqctx.Note(req.Context(), reqctx.Message{Method: m.Method, ID: string(m.ID), Session: s.ID(), Principal: t.host.Principal(c), Duration: time.Since(start)})
}

func (t *Transport[C]) serveGet(w http.ResponseWriter, req *http.Request) {
	if !stream.Accepts(req.Header.Get("Accept"), "text/event-stream") {
		refusal.Write(w, nil, refusal.NotAcceptableStream)
		return
	}
	sess, c, ok := t.sessionFor(w, req, nil, nil)
	if !ok {
		return
	}
	sess.SetAccess(t.host.Grant(c))
	release, refused := t.cfg.Quotas.stream(t.host.Holder(c))
	if refused != nil {
		refusal.Write(w, nil, refused)
		return
	}
	last := req.Header.Get(headerLastEventID)
	switch err := sess.Serve(w, req, last, release); err {
	case session.ErrNoStream:
		refusal.Write(w, nil, refusal.UnknownLastEventID(last))
	case session.ErrConflict:
		refusal.Write(w, nil, refusal.StreamOpen)
	case session.ErrUnavailable:
		refusal.Write(w, nil, refusal.StorageUnavailable)
	case backplane.ErrNotFound: // the stream went with the session
		refusal.Write(w, nil, refusal.SessionNotFound)
	}
}

func (t *Transport[C]) serveDelete(w http.ResponseWriter, req *http.Request) {
	sess, _, ok := t.sessionFor(w, req, nil, nil)
	if !ok {
		return
	}
	if err := t.cfg.Cluster.End(sess, session.EndClient); err != nil {
		refusal.Write(w, nil, refusal.StorageUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sessionFor finds the session a request names in Mcp-Session-Id, if
// any, runs connect, and checks that the caller owns the session: a
// session of another principal answers exactly like an unknown one, and
// only its owner's requests keep it alive. A GET or DELETE must name one.
// init is the request's initialize, if it is one.
func (t *Transport[C]) sessionFor(w http.ResponseWriter, req *http.Request, msgs []*jsonrpc.Message, init *initialize) (*session.Session, C, bool) {
	id := firstID(msgs)
	var none C
	sid := req.Header.Get(HeaderSessionID)
	if sid == "" && req.Method != http.MethodPost {
		refusal.Write(w, nil, refusal.SessionRequiredTerse)
		return nil, none, false
	}
	var sess *session.Session
	if sid != "" {
		var err error
		if sess, err = t.cfg.Cluster.Lookup(req.Context(), sid); err != nil {
			refusal.Write(w, id, session.Refusal(err))
			return nil, none, false
		}
	}
	if v := req.Header.Get(HeaderProtocolVersion); v != "" && !mcp.IsSessionVersion(v) {
		refusal.Write(w, id, refusal.UnsupportedVersion(v))
		return nil, none, false
	}
	var client *mcp.ClientCapabilities
	switch {
	case sess != nil:
		client = sess.ClientCapabilities()
	case init != nil && init.p != nil:
		client = &init.p.Capabilities
	}
	c, ok := t.host.Connect(w, req, id, client)
	if !ok {
		return nil, none, false
	}
	if sess != nil {
		err := backplane.ErrNotFound
		if sess.Principal() == t.host.Principal(c) {
			err = t.cfg.Cluster.Admit(req.Context(), sess, msgs, session.EndTimeout)
		}
		if err != nil {
			refusal.Write(w, id, session.Refusal(err))
			return nil, none, false
		}
	}
	return sess, c, true
}

func firstID(msgs []*jsonrpc.Message) jsonrpc.ID {
	if len(msgs) == 1 {
		return msgs[0].ID
	}
	return nil
}
