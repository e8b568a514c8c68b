package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/sse"
)

// HTTPTransport is the Streamable HTTP transport: every message is a POST
// to URL, answered with JSON or with an SSE stream. In the session era it
// keeps the Mcp-Session-Id, resumes a dropped response stream with GET and
// Last-Event-ID after the server's retry delay, and ends the session with
// DELETE on Close. One message, a JSON answer or an SSE event, is bounded
// at 64 MiB: a larger one fails its request.
type HTTPTransport struct {
	// URL is the MCP endpoint.
	URL string
	// Client sends the requests; nil means http.DefaultClient. Its
	// Transport is where authorization plugs in (see package oauth).
	Client *http.Client
	// Header is added to every request. Like Authorization and the
	// session id, it does not follow a redirect to another origin.
	Header http.Header
	// MaxReconnects bounds the attempts to resume one stream that keeps
	// dropping without delivering anything; default 5.
	MaxReconnects int

	maxEvent int // bound on one SSE event; 0 is maxMessage
}

// eventLimit is the bound on one event of a response stream.
func (t *HTTPTransport) eventLimit() int {
	if t.maxEvent > 0 {
		return t.maxEvent
	}
	return maxMessage
}

// defaultRetry is the reconnection delay when the server gave none.
const defaultRetry = time.Second

// HTTPError is a response that carried no JSON-RPC message: its status
// and the start of its body.
type HTTPError struct {
	Status int
	Header http.Header
	Body   string
}

func (e *HTTPError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("mcp client: HTTP %d", e.Status)
	}
	return fmt.Sprintf("mcp client: HTTP %d: %s", e.Status, e.Body)
}

func (t *HTTPTransport) open(ctx context.Context, in inbound) (conn, error) {
	if t.URL == "" {
		return nil, errors.New("mcp client: HTTPTransport needs a URL")
	}
	base := t.Client
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	hc.CheckRedirect = keepCredentialsHome(base.CheckRedirect, t.Header)
	max := t.MaxReconnects
	if max <= 0 {
		max = 5
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	return &httpConn{url: t.URL, origin: u, hc: &hc, header: t.Header, in: in, maxReconnects: max, maxEvent: t.eventLimit(), pending: map[string]chan *jsonrpc.Message{}}, nil
}

type httpConn struct {
	url           string
	origin        *url.URL // of url: where the session id may come from
	hc            *http.Client
	header        http.Header
	in            inbound
	maxReconnects int
	maxEvent      int

	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message // requests awaiting a response, by id
	session string
	version string // MCP-Protocol-Version of the last request, for GET and DELETE
}

func (c *httpConn) newRequest(ctx context.Context, method string, body []byte, h http.Header) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, r)
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
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
		return nil, fmt.Errorf("mcp client: %s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	if id := res.Header.Get("Mcp-Session-Id"); id != "" && (res.Request == nil || sameOrigin(res.Request.URL, c.origin)) {
		c.mu.Lock()
		c.session = id
		c.mu.Unlock()
	}
	return res, nil
}

func (c *httpConn) call(ctx context.Context, out *outgoing) (*jsonrpc.Message, error) {
	body, err := json.Marshal(out.msg)
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
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
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch {
	case mt == "text/event-stream" && res.StatusCode/100 == 2:
		return c.readStream(ctx, res.Body, out.msg.ID, elsewhere)
	case mt == "application/json":
		data, err := io.ReadAll(io.LimitReader(res.Body, maxMessage))
		if err != nil {
			return nil, fmt.Errorf("mcp client: reading the response: %w", err)
		}
		var m jsonrpc.Message
		if err := json.Unmarshal(data, &m); err != nil || (m.Result == nil && m.Error == nil) {
			return nil, &HTTPError{Status: res.StatusCode, Header: res.Header, Body: snippet(data)}
		}
		return &m, nil
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	return nil, &HTTPError{Status: res.StatusCode, Header: res.Header, Body: snippet(data)}
}

// keepCredentialsHome returns a CheckRedirect that follows a redirect to
// another origin (scheme, host or port) without the credentials meant for
// the first: the static headers of HTTPTransport.Header, Authorization,
// DPoP and the session id. net/http alone would keep Authorization for
// another port or for https to http, and any custom header everywhere.
// Then next decides, or the default limit of 10 redirects.
func keepCredentialsHome(next func(*http.Request, []*http.Request) error, static http.Header) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			for k := range static {
				req.Header.Del(k)
			}
			for _, k := range []string{"Authorization", "DPoP", "Mcp-Session-Id"} {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("mcp client: stopped after 10 redirects")
		}
		return nil
	}
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

// hostPort is a URL's host and port, the scheme's default port when it
// names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if strings.EqualFold(u.Scheme, "https") {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// maxMessage bounds one JSON answer, and by default one SSE event.
const maxMessage = 64 << 20

// tooLarge is the error for a stream whose event is over the bound.
func (c *httpConn) tooLarge(err error) error {
	bound := fmt.Sprintf("%d bytes", c.maxEvent)
	if c.maxEvent%(1<<20) == 0 {
		bound = fmt.Sprintf("%d MiB", c.maxEvent>>20)
	}
	return fmt.Errorf("mcp client: the server sent an event over the %s bound on one message: %w", bound, err)
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
		go func() { done <- c.scan(body, id) }()
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
		if errors.Is(s.err, sse.ErrEventTooLarge) {
			return nil, c.tooLarge(s.err)
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
			return nil, fmt.Errorf("mcp client: the stream ended before the response: %w", err)
		}
		if attempt++; attempt > c.maxReconnects {
			return nil, fmt.Errorf("mcp client: gave up resuming the stream after %d attempts", c.maxReconnects)
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
			var he *HTTPError
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
// last retry delay.
func (c *httpConn) scan(body io.Reader, id jsonrpc.ID) (s scanned) {
	er := sse.NewLimitedReader(body, c.maxEvent)
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
		c.in(&m)
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
		return nil, &HTTPError{Status: res.StatusCode, Header: res.Header, Body: snippet(data)}
	}
	return res, nil
}

func (c *httpConn) send(ctx context.Context, out *outgoing) error {
	body, err := json.Marshal(out.msg)
	if err != nil {
		return fmt.Errorf("mcp client: %w", err)
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
		return &HTTPError{Status: res.StatusCode, Header: res.Header, Body: snippet(data)}
	}
	return nil
}

// listen holds the session's GET stream open until ctx ends, passing on
// what the server sends and resuming after drops; open is called once the
// first attempt is answered. A server that offers no stream (405) ends it
// quietly.
func (c *httpConn) listen(ctx context.Context, open func()) error {
	var last string
	retry := defaultRetry
	for ctx.Err() == nil {
		res, err := c.get(ctx, last)
		if open != nil {
			open()
			open = nil
		}
		if err != nil {
			var he *HTTPError
			if errors.As(err, &he) {
				if he.Status == http.StatusMethodNotAllowed {
					return nil
				}
				return err
			}
		} else {
			s := c.scan(res.Body, nil)
			res.Body.Close()
			if errors.Is(s.err, sse.ErrEventTooLarge) {
				return c.tooLarge(s.err)
			}
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
		return &HTTPError{Status: res.StatusCode, Header: res.Header}
	}
	return nil
}
