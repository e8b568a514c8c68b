package specter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"encoding/json"

	"github.com/labstack/echo/v4"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/msglog"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
	"github.com/specter-mcp/specter/sse"
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

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (r *Router) servePost(w http.ResponseWriter, req *http.Request) {
	if !isMediaType(req.Header.Get("Content-Type"), "application/json") {
		refusal.AbandonBody(w, req)
		refusal.Write(w, nil, refusal.UnsupportedMediaType)
		return
	}
	if accept := req.Header.Get("Accept"); !accepts(accept, "application/json") || !accepts(accept, "text/event-stream") {
		refusal.AbandonBody(w, req)
		refusal.Write(w, nil, refusal.NotAcceptable)
		return
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bodyPool.Put(buf)
	if !r.readBody(w, req, buf) {
		return
	}
	msgs, batch, err := jsonrpc.Parse(buf.Bytes())
	if err != nil {
		refusal.Write(w, nil, refusal.BadRequest(err.(*jsonrpc.Error)))
		return
	}
	if isModern(req.Header, msgs) {
		r.serveModern(w, req, msgs, batch)
		return
	}

	var sess *session
	if sid := req.Header.Get(HeaderSessionID); sid != "" {
		var err error
		if sess, err = r.lookup(req.Context(), sid); err != nil {
			writeLookupError(w, firstID(msgs), err)
			return
		}
	}
	if v := req.Header.Get(HeaderProtocolVersion); v != "" && !mcp.IsSessionVersion(v) {
		refusal.Write(w, firstID(msgs), refusal.UnsupportedVersion(v))
		return
	}
	c, ok := r.runConnect(w, req, firstID(msgs))
	if !ok {
		return
	}
	if sess == nil {
		r.postWithoutSession(w, req, c, msgs, batch)
		return
	}
	if !sess.ownedBy(c.scope.principal) {
		refusal.Write(w, firstID(msgs), refusal.SessionNotFound)
		return
	}
	if batch && !mcp.AllowsBatch(sess.version) {
		refusal.Write(w, nil, refusal.BatchNotSupported(sess.version))
		return
	}
	sess.touch()
	sess.mu.Lock()
	sess.scope = c.scope
	sess.mu.Unlock()

	requests := 0
	for _, m := range msgs {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			requests++
		case jsonrpc.KindNotification:
			r.notification(sess, m)
			msglog.Note(req.Context(), msglog.Message{Method: m.Method, Session: sess.id, Principal: c.scope.principal})
		default:
			if !sess.deliver(m) {
				if r.local {
					r.log.Debug().Str("session", sess.id).Str("id", m.ID.String()).Msg("ignored a response to no pending server request")
				} else {
					// The request may wait on another node.
					raw, _ := json.Marshal(m)
					r.publish(&backplane.Message{Kind: backplane.KindAnswer, Session: sess.id, Data: raw})
				}
			}
			msglog.Note(req.Context(), msglog.Message{Method: "response", ID: string(m.ID), Session: sess.id, Principal: c.scope.principal})
		}
	}
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ob := sess.newStream()
	ob.pending = requests
	gen := ob.attachPOST(w)
	sess.busy.Add(1)
	defer sess.busy.Add(-1)
	further := false // the first request came in on the HTTP request's token
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			if !further || r.withinBudget(c, sess, ob, m) {
				r.dispatch(c, sess, ob, m, nil)
			}
			further = true
		}
	}
	r.await(w, req, sess, ob, gen, batch)
}

// await waits for a POST's answer to complete, the client to go away, or
// the stream to let the connection go, then writes a plain JSON answer if
// nothing was streamed.
func (r *Router) await(w http.ResponseWriter, req *http.Request, sess *session, ob *outbox, gen uint64, batch bool) {
	select {
	case <-ob.done:
	case <-req.Context().Done():
	case <-ob.kick:
	}
	if evs, ok := ob.takeJSON(gen); ok {
		for k, v := range ob.headers {
			w.Header()[k] = v
		}
		writeJSONAnswer(w, ob.status, evs, batch)
		sess.dropStream(ob)
		return
	}
	if ob.detach(gen) {
		sess.dropStream(ob)
	}
}

func writeJSONAnswer(w http.ResponseWriter, status int, evs []event, batch bool) {
	w.Header().Set("Content-Type", "application/json")
	if status == 0 {
		status = http.StatusOK
	}
	if !batch && len(evs) == 1 {
		w.Header().Set("Content-Length", fmt.Sprint(len(evs[0].data)))
		w.WriteHeader(status)
		_, _ = w.Write(evs[0].data)
		return
	}
	w.WriteHeader(status)
	b := make([]byte, 0, 256)
	b = append(b, '[')
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, ev.data...)
	}
	_, _ = w.Write(append(b, ']'))
}

// postWithoutSession serves a POST that names no session: initialize, or
// notifications a client may send before it has one.
func (r *Router) postWithoutSession(w http.ResponseWriter, req *http.Request, c *Context, msgs []*jsonrpc.Message, batch bool) {
	if len(msgs) == 1 && msgs[0].Method == handlers.MethodInitialize {
		r.initialize(w, req, c, msgs[0])
		return
	}
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			refused := refusal.SessionRequired
			if m.Method == handlers.MethodInitialize {
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
	if r.cfg.maxSessions > 0 && r.sessions.len() >= r.cfg.maxSessions {
		refusal.Write(w, m.ID, refusal.TooManySessions)
		return
	}
	client, _ := json.Marshal(p.ClientInfo)
	caps, _ := json.Marshal(p.Capabilities)
	rec := &backplane.Session{ID: randomID(), Version: handlers.Negotiate(p.ProtocolVersion), Principal: c.scope.principal,
		Client: client, Capabilities: caps, LogLevel: r.cfg.logLevel.Severity(), Created: time.Now()}
	ctx, cancel := r.bpContext()
	defer cancel()
	if err := r.bp.CreateSession(ctx, rec, r.cfg.sessionTimeout); err != nil {
		r.report(req.Context(), fmt.Errorf("create session: %w", err), nil)
		refusal.Write(w, m.ID, refusal.StorageUnavailable)
		return
	}
	s := r.sessions.put(r.newLocal(rec))
	s.scope = c.scope
	if r.onStart != nil {
		if err := r.onStart(c, &Session{s: s}); err != nil {
			r.report(req.Context(), fmt.Errorf("session start: %w", err), nil)
			_ = r.endSession(s, EndError)
			refusal.Write(w, m.ID, refusal.Internal)
			return
		}
	}
	s.watchIdle()
	res := &mcp.InitializeResult{ProtocolVersion: s.version, Capabilities: r.capabilities(), ServerInfo: r.info, Instructions: r.instructionsFor(c.scope)}
	body, _ := json.Marshal(res)
	w.Header().Set(HeaderSessionID, s.id)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
	msglog.Note(req.Context(), msglog.Message{Method: m.Method, ID: string(m.ID), Session: s.id, Principal: c.scope.principal, Duration: time.Since(start)})
}

func (r *Router) capabilities() mcp.ServerCapabilities {
	return mcp.ServerCapabilities{
		Logging: &struct{}{}, Completions: &struct{}{},
		Tools:     &mcp.ListChangedCapability{ListChanged: true},
		Prompts:   &mcp.ListChangedCapability{ListChanged: true},
		Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
	}
}

func (r *Router) instructionsFor(s *scope) string {
	if s.instructions != nil {
		return *s.instructions
	}
	return r.instructions
}

// notification acts on a client notification. Unknown ones are ignored,
// as the spec asks.
func (r *Router) notification(s *session, m *jsonrpc.Message) {
	if m.Method != handlers.NotificationCancelled {
		return
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) == nil && !p.RequestID.IsZero() && !s.cancelRequest(p.RequestID) && !r.local {
		// The request may run on another node.
		r.publish(&backplane.Message{Kind: backplane.KindCancel, Session: s.id, ID: json.RawMessage(p.RequestID)})
	}
}

func (r *Router) serveGet(w http.ResponseWriter, req *http.Request) {
	if !accepts(req.Header.Get("Accept"), "text/event-stream") {
		refusal.Write(w, nil, refusal.NotAcceptableStream)
		return
	}
	sess, c, ok := r.sessionFor(w, req)
	if !ok {
		return
	}
	var ob *outbox
	after := uint64(0)
	if last := req.Header.Get(headerLastEventID); last != "" {
		id, seq, valid := parseEventID(last)
		if valid {
			ob = sess.stream(id)
		}
		if ob == nil && valid && r.streamExists(req.Context(), sess, id) {
			// Another node produces this stream: follow it from here.
			sess.busy.Add(1)
			defer func() { sess.busy.Add(-1); sess.touch() }()
			r.tail(w, req, sess, id, seq)
			return
		}
		if ob == nil {
			refusal.Write(w, nil, refusal.UnknownLastEventID(last))
			return
		}
		after = seq
	} else {
		ob = sess.listener()
		if !ob.reserve() {
			refusal.Write(w, nil, refusal.StreamOpen)
			return
		}
		after = ob.delivered()
	}
	sess.mu.Lock()
	sess.scope = c.scope
	sess.mu.Unlock()
	sess.busy.Add(1)
	release := func() { sess.busy.Add(-1); sess.touch() }
	if ob.standalone {
		// A GET stream may stay open for hours: it lives on its own
		// connection, without a goroutine or net/http's buffers, when
		// the connection can be taken over (HTTP/1.x).
		if sw, err := sse.Hijack(w); err == nil {
			ob.attachHijacked(sw, after, release)
			return
		}
	}
	defer release()
	gen := ob.attachStream(w, after)
	select {
	case <-ob.done:
	case <-req.Context().Done():
	case <-ob.kick:
	}
	if ob.detach(gen) && !ob.standalone {
		sess.dropStream(ob)
	}
}

func (r *Router) serveDelete(w http.ResponseWriter, req *http.Request) {
	sess, _, ok := r.sessionFor(w, req)
	if !ok {
		return
	}
	if err := r.endSession(sess, EndClient); err != nil {
		refusal.Write(w, nil, refusal.StorageUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sessionFor finds the session a GET or DELETE names and runs connect.
func (r *Router) sessionFor(w http.ResponseWriter, req *http.Request) (*session, *Context, bool) {
	sid := req.Header.Get(HeaderSessionID)
	if sid == "" {
		refusal.Write(w, nil, refusal.SessionRequiredTerse)
		return nil, nil, false
	}
	if v := req.Header.Get(HeaderProtocolVersion); v != "" && !mcp.IsSessionVersion(v) {
		refusal.Write(w, nil, refusal.UnsupportedVersionTerse(v))
		return nil, nil, false
	}
	sess, err := r.lookup(req.Context(), sid)
	if err != nil {
		writeLookupError(w, nil, err)
		return nil, nil, false
	}
	c, ok := r.runConnect(w, req, nil)
	if !ok {
		return nil, nil, false
	}
	if !sess.ownedBy(c.scope.principal) {
		refusal.Write(w, nil, refusal.SessionNotFoundTerse)
		return nil, nil, false
	}
	return sess, c, true
}

// streamExists reports whether the backplane buffers a stream of s.
func (r *Router) streamExists(ctx context.Context, s *session, stream string) bool {
	ctx, cancel := context.WithTimeout(ctx, bpTimeout)
	defer cancel()
	_, _, err := r.bp.Events(ctx, s.id, stream, ^uint64(0))
	return err == nil
}

// ownedBy reports whether principal may use the session: a session
// belongs to whoever created it.
func (s *session) ownedBy(principal string) bool { return s.principal == principal }

// runConnect runs the connect function; on refusal it writes the answer.
func (r *Router) runConnect(w http.ResponseWriter, req *http.Request, id jsonrpc.ID) (c *Context, ok bool) {
	ec, _ := req.Context().Value(echoKey{}).(echo.Context)
	c = &Context{ctx: req.Context(), r: r, echo: ec, http: req, scope: &scope{}}
	if p, ok := principal.FromContext(req.Context()); ok {
		// Authentication middleware ran before: its caller is the
		// principal unless connect says otherwise.
		c.scope.principal, c.scope.caller = p.ID, p
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

// isMediaType reports whether a Content-Type header names want.
func isMediaType(header, want string) bool {
	mt, _, err := mime.ParseMediaType(header)
	return err == nil && strings.EqualFold(mt, want)
}

// accepts reports whether an Accept header admits the media type want,
// directly or through a wildcard range.
func accepts(header, want string) bool {
	typ, _, _ := strings.Cut(want, "/")
	for part := range strings.SplitSeq(header, ",") {
		mr, _, _ := strings.Cut(part, ";")
		mr = strings.ToLower(strings.TrimSpace(mr))
		if mr == want || mr == "*/*" || mr == typ+"/*" {
			return true
		}
	}
	return false
}
