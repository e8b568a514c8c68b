package direct

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the Streamable HTTP transport that a connection keeps
// for its client.
const (
	headerSessionID   = "Mcp-Session-Id"
	headerLastEventID = "Last-Event-ID"
)

// ErrClosed is what Send returns once Close has been called.
var ErrClosed = errors.New("direct: connection closed")

// Config configures a connection. The zero value serves a router mounted
// at the handler's root with no credentials.
type Config struct {
	// Path is the URL path the handler serves MCP at, such as "/mcp" for
	// an Echo app with the router mounted on e.Group("/mcp"). Default "/".
	Path string
	// Header is set on every request the connection makes, for connect
	// and the handler's middleware to read: typically Authorization.
	// Default: none.
	Header http.Header
	// Context is the parent of every request's context: its values reach
	// connect (principal.NewContext names the caller), and its end ends
	// the connection's requests. Default: context.Background().
	Context context.Context
	// MaxResume bounds how many times in a row the connection resumes a
	// session's answer stream that the server ended early (SSE polling)
	// before it gives up on the answer. Default 100.
	MaxResume int
}

// Conn is a connection to an MCP server in this process. It is safe for
// concurrent use.
type Conn struct {
	h      http.Handler
	out    func([]byte)
	cfg    Config
	ctx    context.Context // parent of every request; cancelled by Close
	cancel context.CancelFunc

	outMu sync.Mutex // serializes out

	mu       sync.Mutex
	closed   bool
	session  string                        // the session-era client's session id
	listened bool                          // the session's GET stream was opened
	inflight map[string]context.CancelFunc // requests outside a session, by id

	work    int            // requests that do work, which Close lets finish
	drained chan struct{}  // closed when work drops to 0 once Close waits
	wg      sync.WaitGroup // every goroutine of the connection
}

// Open connects to the MCP server h. Every message the server sends the
// client (answers, notifications, requests of a session) is passed to
// out, one call per message, never two at once; out must not keep msg
// after it returns, and must not call Send, which may wait for it.
func Open(h http.Handler, out func(msg []byte), cfg Config) *Conn {
	if cfg.Path == "" {
		cfg.Path = "/"
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.MaxResume <= 0 {
		cfg.MaxResume = 100
	}
	ctx, cancel := context.WithCancel(reqctx.WithInProcess(cfg.Context))
	return &Conn{h: h, out: out, cfg: cfg, ctx: ctx, cancel: cancel, inflight: map[string]context.CancelFunc{}}
}

// emit passes one message to out.
func (c *Conn) emit(msg []byte) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.out(msg)
}

// Send hands the server one JSON-RPC message or a batch. Requests run on
// their own goroutines: Send returns once they have started, and their
// answers come out of out. Messages that set up or change the session
// (initialize, notifications and responses) are served before Send
// returns, so that the next message finds them done. A message that does
// not parse is answered with a JSON-RPC parse or invalid-request error,
// as over HTTP. Send fails only after Close.
func (c *Conn) Send(msg []byte) error {
	msgs, _, perr := jsonrpc.Parse(msg)
	one := len(msgs) == 1 && perr == nil
	var m *jsonrpc.Message
	if one {
		m = msgs[0]
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	sid := c.session
	switch {
	case perr == nil && !hasRequest(msgs), one && m.Method == mcp.MethodInitialize:
		// Served in line (counted as work so that Close waits for it).
		c.work++
		c.mu.Unlock()
		defer c.endWork()
		if one && m.Method == mcp.MethodInitialize {
			c.initialize(m, msg, sid)
			return nil
		}
		if one && sid == "" && m.Method == mcp.NotificationCancelled {
			c.cancelRequest(m.Params)
			return nil
		}
		c.post(c.ctx, msg, sid, nil)
		if sid != "" && one && m.Method == mcp.NotificationInitialized {
			c.listen(sid)
		}
		return nil
	}
	// A client that skipped notifications/initialized still gets what
	// the server sends between requests.
	c.listenLocked(sid)
	// Requests (or a body that does not parse, which the server refuses).
	ctx, cancel := context.WithCancel(c.ctx)
	var id jsonrpc.ID
	if one {
		id = m.ID
	}
	// A listen stream is no work to drain: Close ends it at once.
	work := !(one && m.Method == mcp.MethodSubscriptionsListen)
	key := ""
	if one && sid == "" {
		key = id.Key()
		if prev := c.inflight[key]; prev != nil {
			key = "" // an id in use: the first request keeps it
		} else {
			c.inflight[key] = cancel
		}
	}
	if work {
		c.work++
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer cancel()
		if work {
			defer c.endWork()
		}
		c.post(ctx, msg, sid, id)
		if key != "" {
			c.mu.Lock()
			delete(c.inflight, key)
			c.mu.Unlock()
		}
	}()
	return nil
}

func hasRequest(msgs []*jsonrpc.Message) bool {
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			return true
		}
	}
	return false
}

// cancelRequest ends the request a notifications/cancelled names, outside
// a session: on the 2026-07-28 wire, cancelling is closing the request's
// stream.
func (c *Conn) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID.IsZero() {
		return
	}
	c.mu.Lock()
	cancel := c.inflight[p.RequestID.Key()]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// initialize starts a session, replacing the one held, if any.
func (c *Conn) initialize(m *jsonrpc.Message, msg []byte, old string) {
	res := c.post(c.ctx, msg, "", m.ID)
	sid := res.header.Get(headerSessionID)
	if sid == "" {
		return
	}
	c.mu.Lock()
	c.session, c.listened = sid, false
	c.mu.Unlock()
	if old != "" {
		c.end(old)
	}
}

// listen opens the session's GET stream, which carries what the server
// sends between requests, once per session.
func (c *Conn) listen(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listenLocked(sid)
}

// listenLocked is listen with c.mu held.
func (c *Conn) listenLocked(sid string) {
	if sid == "" || c.listened || c.session != sid || c.closed {
		return
	}
	c.listened = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.get(c.ctx, sid, "")
	}()
}

// end ends session sid (DELETE), which stops its work and its streams.
func (c *Conn) end(sid string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 5*time.Second)
	defer cancel()
	req := c.request(ctx, http.MethodDelete, nil, sid)
	c.h.ServeHTTP(&response{header: http.Header{}, discard: true}, req)
}

// Close ends the connection. Requests still running may finish until ctx
// ends; then every request still open is cancelled, streams included,
// and the session, if any, is ended, which stops its work. Close returns
// once the connection's goroutines have returned (a handler that ignores
// its context's end holds Close with it); the error is ctx's if the
// requests did not finish in time. Later calls to Send fail with
// ErrClosed.
func (c *Conn) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.drained = make(chan struct{})
	if c.work == 0 {
		close(c.drained)
	}
	c.mu.Unlock()
	var err error
	select {
	case <-c.drained: // already: even with ctx done, nothing was cut
	default:
		select {
		case <-c.drained:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	c.cancel()
	c.mu.Lock()
	sid := c.session
	c.mu.Unlock()
	if sid != "" {
		c.end(sid)
	}
	c.wg.Wait()
	return err
}

// endWork ends a request that Close lets finish, counted in c.work.
func (c *Conn) endWork() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.work--; c.work == 0 && c.drained != nil {
		close(c.drained)
	}
}

// post sends body as a POST in session sid and passes what comes back
// to out. id is the request's, when body is one request: an answer that
// does not carry it (a refusal written before the body was read) gets
// it, so that the client can match it. When the session ends the answer
// stream early, the answer is resumed with a GET, as an HTTP client
// would.
func (c *Conn) post(ctx context.Context, body []byte, sid string, id jsonrpc.ID) *response {
	req := c.request(ctx, http.MethodPost, body, sid)
	res := &response{header: http.Header{}, emit: c.emit, ctx: ctx, id: id}
	c.h.ServeHTTP(res, req)
	res.finish()
	for i := 0; sid != "" && res.cut() && i < c.cfg.MaxResume && ctx.Err() == nil; i++ {
		if !sleep(ctx, res.retry) {
			break
		}
		res = c.get(ctx, sid, res.lastID)
	}
	return res
}

// maxRetryDelay bounds the reconnection delay the server asks for: the
// delay spares a network, and here the resumed stream is in memory.
const maxRetryDelay = 100 * time.Millisecond

// sleep waits d (at most maxRetryDelay) or until ctx ends; it reports
// whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	d = min(d, maxRetryDelay)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// get opens a GET stream of session sid, resuming after lastID if set.
func (c *Conn) get(ctx context.Context, sid, lastID string) *response {
	req := c.request(ctx, http.MethodGet, nil, sid)
	if lastID != "" {
		req.Header.Set(headerLastEventID, lastID)
	}
	res := &response{header: http.Header{}, emit: c.emit, ctx: ctx, events: true}
	c.h.ServeHTTP(res, req)
	res.finish()
	return res
}

// request builds an HTTP request as a local client would send it: from
// a loopback address to localhost, which the DNS-rebinding guard admits.
func (c *Conn) request(ctx context.Context, method string, body []byte, sid string) *http.Request {
	h := make(http.Header, len(c.cfg.Header)+4)
	for k, v := range c.cfg.Header {
		h[k] = v
	}
	h.Set("Accept", "application/json, text/event-stream")
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if sid != "" {
		h.Set(headerSessionID, sid)
	}
	var rd io.ReadCloser = http.NoBody
	if len(body) > 0 {
		rd = io.NopCloser(bytes.NewReader(body))
	}
	req := &http.Request{
		Method: method, URL: &url.URL{Path: c.cfg.Path}, RequestURI: c.cfg.Path,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: rd, ContentLength: int64(len(body)),
		Host: "localhost", RemoteAddr: "127.0.0.1:0",
	}
	return req.WithContext(ctx)
}
