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
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/middleware"
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
		jsonrpc.WriteError(w, http.StatusMethodNotAllowed, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Method Not Allowed: use POST, GET or DELETE"))
	}
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (r *Router) servePost(w http.ResponseWriter, req *http.Request) {
	if !stream.IsMediaType(req.Header.Get("Content-Type"), "application/json") {
		jsonrpc.WriteError(w, http.StatusUnsupportedMediaType, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json"))
		return
	}
	if accept := req.Header.Get("Accept"); !stream.Accepts(accept, "application/json") || !stream.Accepts(accept, "text/event-stream") {
		jsonrpc.WriteError(w, http.StatusNotAcceptable, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list application/json and text/event-stream"))
		return
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bodyPool.Put(buf)
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, r.cfg.maxBody)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			jsonrpc.WriteError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Request Entity Too Large: the body exceeds %d bytes", r.cfg.maxBody))
			return
		}
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeParseError, "parse error: could not read the body"))
		return
	}
	msgs, batch, err := jsonrpc.Parse(buf.Bytes())
	if err != nil {
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, err.(*jsonrpc.Error))
		return
	}
	if isModern(req.Header, msgs) {
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
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported in protocol version %s", sess.Version()))
		return
	}
	sess.SetAccess(c.scope)

	requests := 0
	for _, m := range msgs {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			requests++
		case jsonrpc.KindNotification:
			sess.Notification(m)
			middleware.Note(req.Context(), middleware.Message{Method: m.Method, Session: sess.ID(), Principal: c.scope.principal})
		default:
			sess.Answer(m)
			middleware.Note(req.Context(), middleware.Message{Method: "response", ID: string(m.ID), Session: sess.ID(), Principal: c.scope.principal})
		}
	}
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ob := sess.NewStream(requests)
	gen := ob.AttachPOST(w)
	sess.Enter()
	defer sess.Leave()
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			r.dispatch(c, sess, ob, m, nil)
		}
	}
	if ob.Await(w, req, gen, batch) {
		sess.DropStream(ob)
	}
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
			msg := "Bad Request: Mcp-Session-Id header is required; send initialize first"
			if m.Method == handlers.MethodInitialize {
				msg = "Invalid Request: initialize must not be part of a batch"
			}
			jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s", msg))
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
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, err.(*jsonrpc.Error))
		return
	}
	if r.closing.Load() {
		jsonrpc.WriteError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Service Unavailable: the server is shutting down"))
		return
	}
	if r.cfg.maxSessions > 0 && r.sessions.Len() >= r.cfg.maxSessions {
		jsonrpc.WriteError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Service Unavailable: too many sessions; try again later"))
		return
	}
	client, _ := json.Marshal(p.ClientInfo)
	caps, _ := json.Marshal(p.Capabilities)
	rec := &backplane.Session{ID: session.NewID(), Version: handlers.Negotiate(p.ProtocolVersion), Principal: c.scope.principal,
		Client: client, Capabilities: caps, LogLevel: r.cfg.logLevel.Severity(), Created: time.Now()}
	s, err := r.sessions.Create(rec)
	if err != nil {
		r.report(req.Context(), err, nil)
		jsonrpc.WriteError(w, http.StatusServiceUnavailable, m.ID, errUnavailable())
		return
	}
	s.SetAccess(c.scope)
	if r.onStart != nil {
		if err := r.onStart(c, &Session{s: s}); err != nil {
			r.report(req.Context(), fmt.Errorf("session start: %w", err), nil)
			_ = r.endSession(s, EndError)
			jsonrpc.WriteError(w, http.StatusInternalServerError, m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"))
			return
		}
	}
	s.WatchIdle()
	res := &mcp.InitializeResult{ProtocolVersion: s.Version(), Capabilities: r.capabilities(), ServerInfo: r.info, Instructions: r.instructionsFor(c.scope)}
	body, _ := json.Marshal(res)
	w.Header().Set(HeaderSessionID, s.ID())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
	middleware.Note(req.Context(), middleware.Message{Method: m.Method, ID: string(m.ID), Session: s.ID(), Principal: c.scope.principal, Duration: time.Since(start)})
}

func (r *Router) serveGet(w http.ResponseWriter, req *http.Request) {
	if !stream.Accepts(req.Header.Get("Accept"), "text/event-stream") {
		jsonrpc.WriteError(w, http.StatusNotAcceptable, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list text/event-stream"))
		return
	}
	sess, c, ok := r.sessionFor(w, req, nil)
	if !ok {
		return
	}
	sess.SetAccess(c.scope)
	last := req.Header.Get(headerLastEventID)
	switch err := sess.Serve(w, req, last); err {
	case session.ErrNoStream:
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Bad Request: Last-Event-ID %q names no stream of this session", last))
	case session.ErrConflict:
		jsonrpc.WriteError(w, http.StatusConflict, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Conflict: this session already has a GET stream open"))
	}
}

func (r *Router) serveDelete(w http.ResponseWriter, req *http.Request) {
	sess, _, ok := r.sessionFor(w, req, nil)
	if !ok {
		return
	}
	if err := r.endSession(sess, EndClient); err != nil {
		jsonrpc.WriteError(w, http.StatusServiceUnavailable, nil, errUnavailable())
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
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required"))
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
		jsonrpc.WriteError(w, http.StatusBadRequest, id, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(mcp.SessionVersions, ", ")))
		return nil, nil, false
	}
	c, ok := r.runConnect(w, req, id)
	if !ok {
		return nil, nil, false
	}
	if sess != nil {
		err := backplane.ErrNotFound
		if sess.Principal() == c.scope.principal {
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
	c = &Context{ctx: req.Context(), echo: ec, http: req, scope: &scope{}}
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
		jsonrpc.WriteError(w, http.StatusInternalServerError, id, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"))
		return
	}
	switch he.Status {
	case http.StatusUnauthorized:
		// RFC 6750 §3.1: a request without credentials gets no error code.
		code := ""
		if req.Header.Get("Authorization") != "" {
			code = "invalid_token"
		}
		w.Header().Set("WWW-Authenticate", r.challenge(code, he.Scope))
	case http.StatusForbidden:
		if he.Scope != "" {
			w.Header().Set("WWW-Authenticate", r.challenge("insufficient_scope", he.Scope))
		}
	}
	jsonrpc.WriteError(w, he.Status, id, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s: %s", http.StatusText(he.Status), he.Message))
}

// challenge builds a Bearer WWW-Authenticate value (RFC 6750, RFC 9728).
func (r *Router) challenge(code, scope string) string {
	return auth.Challenge(r.cfg.resourceMeta, strings.Fields(scope), code)
}

func firstID(msgs []*jsonrpc.Message) jsonrpc.ID {
	if len(msgs) == 1 {
		return msgs[0].ID
	}
	return nil
}
