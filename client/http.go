package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/sse"
)

// HTTPTransport is the Streamable HTTP transport: every message is a POST
// to URL, answered with JSON or with an SSE stream. In the session era it
// keeps the Mcp-Session-Id, resumes a dropped response stream with GET and
// Last-Event-ID after the server's retry delay, and ends the session with
// DELETE on Close.
type HTTPTransport struct {
	// URL is the MCP endpoint.
	URL string
	// Client sends the requests; nil means http.DefaultClient. Its
	// Transport is where authorization plugs in (see package oauth).
	Client *http.Client
	// Header is added to every request.
	Header http.Header
	// MaxReconnects bounds the attempts to resume one stream that keeps
	// dropping without delivering anything; default 5.
	MaxReconnects int
}

// defaultRetry is the reconnection delay when the server gave none.
const defaultRetry = time.Second

// sessionError is an HTTP error to a request that carried a session id:
// a 404 of this kind means the server ended or forgot the session.
type sessionError struct {
	*mcp.HTTPError
	session string // the Mcp-Session-Id the request carried
}

func (e *sessionError) Unwrap() error { return e.HTTPError }

// httpError is the error of a response with status, header and body data,
// to a request that carried the session id sent ("" for none).
func httpError(res *http.Response, data []byte, rpc *jsonrpc.Error, sent string) error {
	he := &mcp.HTTPError{Status: res.StatusCode, Header: res.Header, Message: snippet(data)}
	if rpc != nil {
		he.Err = rpc
	}
	if sent == "" {
		return he
	}
	return &sessionError{HTTPError: he, session: sent}
}

func (t *HTTPTransport) open(ctx context.Context, in inbound) (conn, error) {
	if t.URL == "" {
		return nil, errors.New("HTTPTransport needs a URL")
	}
	hc := t.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	max := t.MaxReconnects
	if max <= 0 {
		max = 5
	}
	return &httpConn{url: t.URL, hc: hc, header: t.Header, in: in, maxReconnects: max, pending: map[string]chan *jsonrpc.Message{}, renewed: make(chan struct{})}, nil
}

type httpConn struct {
	url           string
	hc            *http.Client
	header        http.Header
	in            inbound
	maxReconnects int

	mu       sync.Mutex
	pending  map[string]chan *jsonrpc.Message // requests awaiting a response, by id
	session  string
	renewed  chan struct{} // closed, and replaced, when session changes
	sessions bool          // whether the server ever gave a session
	version  string        // MCP-Protocol-Version of the last request, for GET and DELETE
}

func (c *httpConn) newRequest(ctx context.Context, method string, body []byte, h http.Header) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, r)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	c.mu.Lock()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if v := h.Get("MCP-Protocol-Version"); v != "" {
		c.version = v
	} else if c.version != "" && body == nil {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	c.mu.Unlock()
	return req, nil
}

func (c *httpConn) do(req *http.Request) (*http.Response, error) {
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, err // a *url.Error: the method, the URL without password, why
	}
	if id := res.Header.Get("Mcp-Session-Id"); id != "" {
		c.setSession(id)
	}
	return res, nil
}

// setSession records the session id the server gave, or "" for none.
func (c *httpConn) setSession(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != id {
		c.session = id
		c.sessions = c.sessions || id != ""
		close(c.renewed)
		c.renewed = make(chan struct{})
	}
}

// ended handles a 404 to a request made in session sent: the server
// ended or forgot the session, and the next initialize must go without
// it (a renewal by another request may have replaced it already).
func (c *httpConn) ended(sent string) {
	c.mu.Lock()
	current := c.session
	c.mu.Unlock()
	if sent != "" && current == sent {
		c.setSession("")
	}
}

// awaitSession waits until the connection has a session other than old.
func (c *httpConn) awaitSession(ctx context.Context, old string) error {
	for {
		c.mu.Lock()
		session, renewed := c.session, c.renewed
		c.mu.Unlock()
		if session != "" && session != old {
			return nil
		}
		select {
		case <-renewed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *httpConn) call(ctx context.Context, out *outgoing) (*jsonrpc.Message, error) {
	body, err := json.Marshal(out.msg)
	if err != nil {
		return nil, err
	}
	req, err := c.newRequest(ctx, http.MethodPost, body, out.header)
	if err != nil {
		return nil, err
	}
	key := out.msg.ID.Key()
	elsewhere := make(chan *jsonrpc.Message, 1)
	c.mu.Lock()
	c.pending[key] = elsewhere
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	res, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	sent := req.Header.Get("Mcp-Session-Id")
	if res.StatusCode == http.StatusNotFound {
		c.ended(sent)
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch {
	case mt == "text/event-stream" && res.StatusCode/100 == 2:
		return c.readStream(ctx, res.Body, out.msg.ID, elsewhere)
	case mt == "application/json":
		data, err := io.ReadAll(io.LimitReader(res.Body, maxMessage))
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		var m jsonrpc.Message
		if err := json.Unmarshal(data, &m); err != nil || (m.Result == nil && m.Error == nil) {
			return nil, httpError(res, data, nil, sent)
		}
		if res.StatusCode/100 != 2 && m.Error != nil {
			return nil, httpError(res, data, m.Error, sent)
		}
		return &m, nil
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	return nil, httpError(res, data, nil, sent)
}

func snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// readStream reads an SSE response until the message answering id, which
// may also arrive on another of the session's streams (delivered on
// elsewhere). A stream that ends first is resumed with GET and
// Last-Event-ID after the retry delay the server asked for, as long as the
// server gave events ids.
func (c *httpConn) readStream(ctx context.Context, body io.ReadCloser, id jsonrpc.ID, elsewhere <-chan *jsonrpc.Message) (*jsonrpc.Message, error) {
	var last string
	retry := defaultRetry
	for attempt := 0; ; {
		done := make(chan scanned, 1)
		go func() { done <- c.scan(ctx, body, id) }()
		var s scanned
		select {
		case s = <-done:
		case m := <-elsewhere:
			body.Close()
			<-done
			return m, nil
		case <-ctx.Done():
			body.Close()
			<-done
			return nil, ctx.Err()
		}
		body.Close()
		if s.resp != nil {
			return s.resp, nil
		}
		if s.retry > 0 {
			retry = s.retry
		}
		if s.lastID != "" {
			last, attempt = s.lastID, 0
		}
		if last == "" {
			err := s.err
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("the stream ended before the response: %w", err)
		}
		if attempt++; attempt > c.maxReconnects {
			return nil, fmt.Errorf("gave up resuming the stream after %d attempts", c.maxReconnects)
		}
		select {
		case <-time.After(retry):
		case m := <-elsewhere:
			return m, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		res, err := c.get(ctx, last)
		if err != nil {
			var he *mcp.HTTPError
			if errors.As(err, &he) {
				return nil, err // the server will not resume this stream
			}
			body = io.NopCloser(strings.NewReader(""))
			continue
		}
		body = res.Body
	}
}

// scanned is what scan found.
type scanned struct {
	resp   *jsonrpc.Message
	lastID string
	retry  time.Duration
	err    error
}

// scan reads events until the response to id or the end of the stream.
// Responses to the session's other requests go to their callers, every
// other message to the client. It returns the last event id seen and the
// last retry delay. ctx is the call's, for the server's requests on its
// stream; nil on the GET stream.
func (c *httpConn) scan(ctx context.Context, body io.Reader, id jsonrpc.ID) (s scanned) {
	er := sse.NewReader(body)
	for {
		ev, err := er.Next()
		if err != nil {
			s.err = err
			return s
		}
		if ev.ID != "" {
			s.lastID = ev.ID
		}
		if ev.Retry > 0 {
			s.retry = ev.Retry
		}
		if (ev.Name != "" && ev.Name != "message") || strings.TrimSpace(ev.Data) == "" {
			continue
		}
		var m jsonrpc.Message
		if json.Unmarshal([]byte(ev.Data), &m) != nil {
			continue
		}
		if m.Method == "" {
			if id != nil && m.ID.Key() == id.Key() {
				s.resp = &m
				return s
			}
			c.mu.Lock()
			ch := c.pending[m.ID.Key()]
			c.mu.Unlock()
			if ch != nil {
				select {
				case ch <- &m:
				default:
				}
			}
			continue
		}
		c.in(ctx, &m)
	}
}

// get opens the GET stream, resuming after lastID when it is set.
func (c *httpConn) get(ctx context.Context, lastID string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, nil, nil)
	if err != nil {
		return nil, err
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := c.do(req)
	if err != nil {
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if res.StatusCode != http.StatusOK || mt != "text/event-stream" {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		res.Body.Close()
		return nil, &mcp.HTTPError{Status: res.StatusCode, Header: res.Header, Message: snippet(data)}
	}
	return res, nil
}

func (c *httpConn) send(ctx context.Context, out *outgoing) error {
	body, err := json.Marshal(out.msg)
	if err != nil {
		return err
	}
	req, err := c.newRequest(ctx, http.MethodPost, body, out.header)
	if err != nil {
		return err
	}
	res, err := c.do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	if res.StatusCode/100 != 2 {
		return &mcp.HTTPError{Status: res.StatusCode, Header: res.Header, Message: snippet(data)}
	}
	return nil
}

// listen holds the session's GET stream open until ctx ends, passing on
// what the server sends and resuming after drops; open is called once the
// first attempt is answered. A server that offers no stream (405) ends it
// quietly; one that ended the session (404) gets a stream in the next
// session, once a request has started it.
func (c *httpConn) listen(ctx context.Context, open func()) error {
	var last string
	retry := defaultRetry
	for ctx.Err() == nil {
		c.mu.Lock()
		session, ended := c.session, c.sessions && c.session == ""
		c.mu.Unlock()
		if ended {
			// A request found the session gone: wait for the next one.
			if err := c.awaitSession(ctx, ""); err != nil {
				return nil
			}
			last = ""
			continue
		}
		res, err := c.get(ctx, last)
		if open != nil {
			open()
			open = nil
		}
		if err != nil {
			var he *mcp.HTTPError
			if errors.As(err, &he) {
				switch he.Status {
				case http.StatusMethodNotAllowed:
					return nil
				case http.StatusNotFound:
					if session != "" {
						c.ended(session)
						continue
					}
				}
				return err
			}
		} else {
			s := c.scan(nil, res.Body, nil)
			res.Body.Close()
			if s.lastID != "" {
				last = s.lastID
			}
			if s.retry > 0 {
				retry = s.retry
			}
		}
		select {
		case <-time.After(retry):
		case <-ctx.Done():
		}
	}
	return nil
}

func (c *httpConn) close(ctx context.Context) error {
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	if session == "" {
		return nil
	}
	req, err := c.newRequest(ctx, http.MethodDelete, nil, nil)
	if err != nil {
		return err
	}
	res, err := c.do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 && res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != http.StatusNotFound {
		return &mcp.HTTPError{Status: res.StatusCode, Header: res.Header}
	}
	return nil
}
