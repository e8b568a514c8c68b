package specter

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"encoding/json"

	"github.com/labstack/echo/v4"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/internal/msglog"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
)

// HTTP headers of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-ID"
)

func (r *Router) serveHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.Method {
	case http.MethodPost:
		r.servePost(w, req)
	case http.MethodGet:
		r.serveGet(w, req)
	case http.MethodDelete:
		r.serveDelete(w, req)
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

func (r *Router) servePost(w http.ResponseWriter, req *http.Request) {
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
	if !r.readBody(w, req, buf) {
		putBody(buf)
		return
	}
	msgs, batch, err := jsonrpc.Parse(buf.Bytes())
	putBody(buf)
	if err != nil {
		refusal.Write(w, nil, refusal.BadRequest(err.(*jsonrpc.Error)))
		return
	}
	if modern.Is(req.Header.Get(HeaderSessionID), req.Header.Get(HeaderProtocolVersion), msgs) {
		r.serveModern(w, req, msgs, batch)
		return
	}

	sess, c, ok := r.sessionFor(w, req, firstID(msgs))
	if !ok {
		return
	}
	if sess == nil {
		r.postWithoutSession(w, req, c, msgs, batch)
		return
	}
	if batch && !mcp.AllowsBatch(sess.Version()) {
		refusal.Write(w, nil, refusal.BatchNotSupported(sess.Version()))
		return
	}
	sess.SetAccess(c.grant)

	requests := 0
	for _, m := range msgs {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			requests++
			m.Params = handlers.Compact(m.Params)
		case jsonrpc.KindNotification:
			sess.Notification(m)
			msglog.Note(req.Context(), msglog.Message{Method: m.Method, Session: sess.ID(), Principal: c.grant.principal})
		default:
			sess.Answer(m)
			msglog.Note(req.Context(), msglog.Message{Method: "response", ID: string(m.ID), Session: sess.ID(), Principal: c.grant.principal})
		}
	}
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ob := sess.NewStream(requests, batch)
	gen := ob.AttachPOST(w)
	sess.Enter()
	defer sess.Leave()
	further := false // the first request came in on the HTTP request's token
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			if !further || r.withinBudget(c, sess, ob, m) {
				r.dispatch(c, sess, ob, m, nil)
			}
			further = true
		}
	}
	if ob.Await(w, req, gen, batch) {
		sess.DropStream(ob)
	}
}

// postWithoutSession serves a POST that names no session: initialize, or
// notifications a client may send before it has one.
func (r *Router) postWithoutSession(w http.ResponseWriter, req *http.Request, c *Context, msgs []*jsonrpc.Message, batch bool) {
	if len(msgs) == 1 && msgs[0].Method == mcp.MethodInitialize {
		r.initialize(w, req, c, msgs[0])
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

func (r *Router) initialize(w http.ResponseWriter, req *http.Request, c *Context, m *jsonrpc.Message) {
	start := time.Now()
	p, err := handlers.DecodeInitialize(m.Params)
	if err != nil {
		refusal.Write(w, m.ID, refusal.BadRequest(err.(*jsonrpc.Error)))
		return
	}
	if r.closing.Load() {
		refusal.Write(w, m.ID, refusal.ShuttingDown)
		return
	}
	if r.cfg.maxSessions > 0 && r.sessions.Len() >= r.cfg.maxSessions {
		refusal.Write(w, m.ID, refusal.TooManySessions)
		return
	}
	release, ok := r.caps.sessions.Take(c.holder())
	if !ok {
		refusal.Write(w, m.ID, refusal.SessionsPerCaller(r.caps.sessions.Limit()))
		return
	}
	client, _ := json.Marshal(p.ClientInfo)
	caps, _ := json.Marshal(p.Capabilities)
	rec := &backplane.Session{ID: session.NewID(), Version: handlers.Negotiate(p.ProtocolVersion), Principal: c.grant.principal,
		Client: client, Capabilities: caps, LogLevel: r.cfg.logLevel.Severity(), Created: time.Now()}
	s, err := r.sessions.Create(rec, release)
	if err != nil {
		r.report(req.Context(), err, nil)
		refusal.Write(w, m.ID, refusal.StorageUnavailable)
		return
	}
	s.SetAccess(c.grant)
	if r.onStart != nil {
		if err := r.onStart(c, &Session{s: s}); err != nil {
			r.report(req.Context(), fmt.Errorf("session start: %w", err), nil)
			_ = r.endSession(s, EndError)
			refusal.Write(w, m.ID, refusal.Internal)
			return
		}
	}
	s.WatchIdle()
	res := &mcp.InitializeResult{ProtocolVersion: s.Version(), Capabilities: r.capabilities(), ServerInfo: r.info, Instructions: r.instructionsFor(c.grant)}
	body, _ := json.Marshal(res)
	w.Header().Set(HeaderSessionID, s.ID())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
	msglog.Note(req.Context(), msglog.Message{Method: m.Method, ID: string(m.ID), Session: s.ID(), Principal: c.grant.principal, Duration: time.Since(start)})
}

func (r *Router) serveGet(w http.ResponseWriter, req *http.Request) {
	if !stream.Accepts(req.Header.Get("Accept"), "text/event-stream") {
		refusal.Write(w, nil, refusal.NotAcceptableStream)
		return
	}
	sess, c, ok := r.sessionFor(w, req, nil)
	if !ok {
		return
	}
	sess.SetAccess(c.grant)
	release, ok := r.caps.streams.Take(c.holder())
	if !ok {
		refusal.Write(w, nil, refusal.StreamsPerCaller(r.caps.streams.Limit()))
		return
	}
	last := req.Header.Get(headerLastEventID)
	switch err := sess.Serve(w, req, last, release); err {
	case session.ErrNoStream:
		refusal.Write(w, nil, refusal.UnknownLastEventID(last))
	case session.ErrConflict:
		refusal.Write(w, nil, refusal.StreamOpen)
	}
}

func (r *Router) serveDelete(w http.ResponseWriter, req *http.Request) {
	sess, _, ok := r.sessionFor(w, req, nil)
	if !ok {
		return
	}
	if err := r.endSession(sess, EndClient); err != nil {
		refusal.Write(w, nil, refusal.StorageUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sessionFor finds the session a request names in Mcp-Session-Id, if
// any, runs connect, and checks that the caller owns the session: a
// session of another principal answers exactly like an unknown one, and
// only its owner's requests keep it alive. A GET or DELETE must name one.
func (r *Router) sessionFor(w http.ResponseWriter, req *http.Request, id jsonrpc.ID) (*session.Session, *Context, bool) {
	sid := req.Header.Get(HeaderSessionID)
	if sid == "" && req.Method != http.MethodPost {
		refusal.Write(w, nil, refusal.SessionRequiredTerse)
		return nil, nil, false
	}
	var sess *session.Session
	if sid != "" {
		var err error
		if sess, err = r.lookup(req.Context(), sid); err != nil {
			writeLookupError(w, id, err)
			return nil, nil, false
		}
	}
	if v := req.Header.Get(HeaderProtocolVersion); v != "" && !mcp.IsSessionVersion(v) {
		refusal.Write(w, id, refusal.UnsupportedVersion(v))
		return nil, nil, false
	}
	c, ok := r.runConnect(w, req, id)
	if !ok {
		return nil, nil, false
	}
	if sess != nil {
		err := backplane.ErrNotFound
		if sess.Principal() == c.grant.principal {
			err = r.touch(req.Context(), sess)
		}
		if err != nil {
			writeLookupError(w, id, err)
			return nil, nil, false
		}
	}
	return sess, c, true
}

// runConnect runs the connect function; on refusal it writes the answer.
func (r *Router) runConnect(w http.ResponseWriter, req *http.Request, id jsonrpc.ID) (c *Context, ok bool) {
	ec, _ := req.Context().Value(echoKey{}).(echo.Context)
	c = &Context{ctx: req.Context(), r: r, echo: ec, http: req, grant: &grant{}}
	if p, ok := principal.FromContext(req.Context()); ok {
		// Authentication middleware ran before: its caller is the
		// principal unless connect says otherwise.
		c.grant.principal, c.grant.caller = p.ID, p
	}
	if r.connect != nil {
		err := func() (err error) {
			defer func() {
				if v := recover(); v != nil {
					err = panicError(v)
				}
			}()
			return r.connect(c)
		}()
		if err != nil {
			r.refuse(w, req, id, err)
			return nil, false
		}
	}
	c.shared = true
	return c, true
}

func (r *Router) refuse(w http.ResponseWriter, req *http.Request, id jsonrpc.ID, err error) {
	var he *HTTPError
	if !errors.As(err, &he) {
		r.report(req.Context(), fmt.Errorf("connect: %w", err), nil)
		refusal.Write(w, id, refusal.Internal)
		return
	}
	switch he.Status {
	case http.StatusUnauthorized:
		// RFC 6750 §3.1: a request without credentials gets no error code.
		code := ""
		if req.Header.Get("Authorization") != "" {
			code = bearer.CodeInvalidToken
		}
		w.Header().Set("WWW-Authenticate", r.challenge(req, code, he.Scope))
	case http.StatusForbidden:
		if he.Scope != "" {
			w.Header().Set("WWW-Authenticate", r.challenge(req, bearer.CodeInsufficientScope, he.Scope))
		}
	}
	refusal.Write(w, id, refusal.Status(he.Status, he.Message))
}

// challenge builds a Bearer WWW-Authenticate value (RFC 6750, RFC 9728)
// naming the metadata URL auth.JWT put in req's context, or else the one
// of the ResourceMetadata option.
func (r *Router) challenge(req *http.Request, code, scope string) string {
	url := bearer.ResourceMetadata(req.Context())
	if url == "" {
		url = r.cfg.resourceMeta
	}
	return bearer.Challenge(url, strings.Fields(scope), code)
}

func firstID(msgs []*jsonrpc.Message) jsonrpc.ID {
	if len(msgs) == 1 {
		return msgs[0].ID
	}
	return nil
}
