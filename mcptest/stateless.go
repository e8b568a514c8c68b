package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// StatelessVersion is the protocol revision a StatelessClient speaks by default.
const StatelessVersion = mcp.Version20260728

// StatelessClient speaks the stateless 2026-07-28 wire: there is no
// initialize and no session; every request is a POST whose params carry
// _meta (protocol version, client capabilities, optionally client info
// and log level) and whose headers repeat what routing needs
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name). Set its fields before the
// first call; a StatelessClient is safe for concurrent use afterwards.
type StatelessClient struct {
	URL string
	// HTTP is the client used; default http.DefaultClient.
	HTTP *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// Version goes into the MCP-Protocol-Version header and into
	// _meta["io.modelcontextprotocol/protocolVersion"]. Default
	// StatelessVersion.
	Version string
	// Capabilities are declared on every request.
	Capabilities mcp.ClientCapabilities
	// ClientInfo is sent in _meta when set.
	ClientInfo *mcp.Implementation
	// LogLevel, when set, asks for log messages at that level or above.
	LogLevel mcp.LoggingLevel
	// OnMessage sees every JSON-RPC message the server sends, raw;
	// request is the method of the request whose answer carried it.
	OnMessage func(request string, msg []byte)

	nextID atomic.Int64
}

// NewStatelessClient returns a 2026-07-28 client for the MCP endpoint at url.
func NewStatelessClient(url string) *StatelessClient {
	return &StatelessClient{URL: url, Header: http.Header{}, Version: StatelessVersion}
}

// StatelessRequest is one 2026-07-28 request before it is sent. Request fills
// it in exactly as Call sends it; a test may change any part (the body's
// id, method or params, the _meta, the headers) to probe the server.
type StatelessRequest struct {
	// ID is the request id; a zero ID sends a notification.
	ID     jsonrpc.ID
	Method string
	// Params is the params object; nil sends none. Params["_meta"] holds
	// the request's _meta as a map[string]any.
	Params map[string]any
	// Header is every header of the POST, Content-Type and Accept
	// included.
	Header http.Header
}

// Meta returns the request's _meta, adding an empty one if there is none.
func (r *StatelessRequest) Meta() map[string]any {
	if r.Params == nil {
		r.Params = map[string]any{}
	}
	m, ok := r.Params["_meta"].(map[string]any)
	if !ok {
		m = map[string]any{}
		r.Params["_meta"] = m
	}
	return m
}

func (c *StatelessClient) version() string {
	if c.Version == "" {
		return StatelessVersion
	}
	return c.Version
}

// Meta returns the _meta the client puts on every request.
func (c *StatelessClient) Meta() map[string]any {
	m := map[string]any{
		mcp.MetaProtocolVersion:    c.version(),
		mcp.MetaClientCapabilities: c.Capabilities,
	}
	if c.ClientInfo != nil {
		m[mcp.MetaClientInfo] = *c.ClientInfo
	}
	if c.LogLevel != "" {
		m[mcp.MetaLogLevel] = c.LogLevel
	}
	return m
}

// Request builds a request the way Call sends it, with a fresh id. params
// is copied, not changed; keys of a _meta object in it (a progressToken,
// say) are merged into the client's _meta, and win over it.
func (c *StatelessClient) Request(method string, params map[string]any) *StatelessRequest {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	meta := c.Meta()
	switch given := p["_meta"].(type) {
	case map[string]any:
		maps.Copy(meta, given)
	case mcp.Meta:
		maps.Copy(meta, given)
	}
	p["_meta"] = meta

	h := http.Header{}
	for k, vs := range c.Header {
		h[k] = append([]string(nil), vs...)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", c.version())
	h.Set("Mcp-Method", method)
	if name, ok := nameOf(p); ok {
		h.Set("Mcp-Name", EncodeHeaderValue(name))
	}
	return &StatelessRequest{ID: jsonrpc.IntID(c.nextID.Add(1)), Method: method, Params: p, Header: h}
}

// nameOf is what the Mcp-Name header carries: params.name (tools/call,
// prompts/get), params.uri (resources/read) or params.taskId (tasks/*).
func nameOf(p map[string]any) (string, bool) {
	for _, k := range []string{"name", "uri", "taskId"} {
		if s, ok := p[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// EncodeHeaderValue returns v as an MCP header value: v itself when it is
// plain printable ASCII that survives header parsing unchanged, otherwise
// the sentinel form "=?base64?<standard padded Base64 of v>?=". Values that
// look like the sentinel are encoded too, so that the server does not
// decode them.
func EncodeHeaderValue(v string) string {
	plain := v == strings.Trim(v, " \t") &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// Body returns the JSON-RPC message r sends.
func (r *StatelessRequest) Body() ([]byte, error) {
	var p json.RawMessage
	if r.Params != nil {
		b, err := json.Marshal(r.Params)
		if err != nil {
			return nil, fmt.Errorf("mcptest: encode params: %w", err)
		}
		p = b
	}
	return jsonrpc.AppendRequest(nil, r.ID, r.Method, p), nil
}

// Call sends a request and reads its answer: plain JSON, or an event
// stream read up to the response (notifications before it are collected
// in Response.Notifications).
func (c *StatelessClient) Call(ctx context.Context, method string, params map[string]any) (*Response, error) {
	return c.Send(ctx, c.Request(method, params))
}

// Send posts r and reads its answer as Call does. A non-2xx status with a
// JSON-RPC error body comes back as a Response with Error set.
func (c *StatelessClient) Send(ctx context.Context, r *StatelessRequest) (*Response, error) {
	hr, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	defer hr.Body.Close()
	return c.readAnswer(hr, r.ID, r.Method)
}

// PostRaw posts body as it is, with the client's headers and header (which
// may be nil), and reads the answer to request id (nil for bodies that
// carry no request). method is what OnMessage is told the answer is for.
func (c *StatelessClient) PostRaw(ctx context.Context, body []byte, header http.Header, id jsonrpc.ID, method string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range header {
		req.Header[k] = append([]string(nil), vs...)
	}
	hr, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer hr.Body.Close()
	return c.readAnswer(hr, id, method)
}

func (c *StatelessClient) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *StatelessClient) do(ctx context.Context, r *StatelessRequest) (*http.Response, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	return c.httpClient().Do(req)
}

func (c *StatelessClient) observe(method string, msg []byte) {
	if c.OnMessage != nil {
		c.OnMessage(method, msg)
	}
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// readAnswer reads the answer to a POST. Plain JSON is read as a session
// client reads it; an event stream is read here, because on this wire a
// server request on the stream is a protocol violation to record, not a
// question to answer.
func (c *StatelessClient) readAnswer(hr *http.Response, id jsonrpc.ID, method string) (*Response, error) {
	if !isEventStream(hr.Header) {
		plain := &Client{OnMessage: func(_ string, msg []byte) { c.observe(method, msg) }}
		return plain.ReadAnswer(hr, id)
	}
	resp := &Response{Status: hr.StatusCode, Header: hr.Header, Streamed: true}
	er := NewEventReader(hr.Body)
	for {
		ev, err := er.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return resp, ErrStreamEnded
			}
			return resp, err
		}
		resp.Events = append(resp.Events, ev)
		if ev.Data == "" {
			continue
		}
		m, err := c.decode(method, []byte(ev.Data))
		if err != nil {
			return resp, err
		}
		switch m.Kind() {
		case jsonrpc.KindNotification:
			resp.Notifications = append(resp.Notifications, m)
		case jsonrpc.KindRequest:
			// Never answered: 2026-07-28 has no server-to-client requests
			// on a response stream. Tests assert Requests is empty.
			resp.Requests = append(resp.Requests, m)
		default:
			if id == nil || m.ID.Key() == id.Key() {
				resp.ID, resp.Result, resp.Error = m.ID, m.Result, m.Error
				return resp, nil
			}
		}
	}
}

func (c *StatelessClient) decode(method string, data []byte) (*jsonrpc.Message, error) {
	c.observe(method, data)
	var m jsonrpc.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("mcptest: server sent invalid JSON %q: %w", data, err)
	}
	return &m, nil
}

// StatelessResult holds what every 2026-07-28 result shares, and the fields of
// an input_required result, as sent: _meta and each question's params stay
// raw JSON for tests to compare (mcp.ResultBase and mcp.InputRequiredResult
// decode them into Go values). Decode a Response's Result into it.
type StatelessResult struct {
	ResultType string                     `json:"resultType"`
	TTLMs      *int64                     `json:"ttlMs"`
	CacheScope string                     `json:"cacheScope"`
	Meta       map[string]json.RawMessage `json:"_meta"`
	// InputRequests and RequestState are set on input_required results.
	InputRequests map[string]InputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// InputRequest is one question of an input_required result.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ErrSubscriptionClosed is returned by Next after Close.
var ErrSubscriptionClosed = errors.New("mcptest: subscription closed")

// Subscription is an open event stream answering a 2026-07-28 request,
// read as messages arrive: a subscriptions/listen stream, or the stream of
// a request whose answer is still coming.
type Subscription struct {
	// ID is the id of the request that opened the stream (for a listen
	// stream, the subscription id).
	ID     jsonrpc.ID
	Status int
	Header http.Header

	body     io.ReadCloser
	msgs     chan *jsonrpc.Message
	err      error // why the stream ended; read after msgs is closed
	stop     chan struct{}
	exited   chan struct{}
	comments atomic.Int64
	once     sync.Once
}

// Listen opens a subscriptions/listen stream with filter. A refusal
// comes back as the error: a *jsonrpc.Error, or a *StatusError.
func (c *StatelessClient) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (*Subscription, error) {
	return c.Open(ctx, c.Request(mcp.MethodSubscriptionsListen, map[string]any{"notifications": filter}))
}

// Open sends r and, if the server answers with an event stream, returns it
// open; its messages are read as they arrive with Next. The stream is read
// until Close, which must be called. An answer that is no event stream
// comes back as an error: the *jsonrpc.Error or *StatusError of a refusal,
// or an error saying the result came as plain JSON (use Send for those).
func (c *StatelessClient) Open(ctx context.Context, r *StatelessRequest) (*Subscription, error) {
	hr, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !isEventStream(hr.Header) {
		defer hr.Body.Close()
		resp, err := c.readAnswer(hr, r.ID, r.Method)
		switch {
		case err != nil:
			return nil, err
		case resp.Error != nil:
			return nil, resp.Error
		case resp.Status >= 300:
			return nil, &StatusError{Status: resp.Status, Body: resp.Body}
		}
		return nil, fmt.Errorf("mcptest: %s was answered with plain JSON, not a stream: %s", r.Method, resp.Body)
	}
	s := &Subscription{
		ID: r.ID, Status: hr.StatusCode, Header: hr.Header, body: hr.Body,
		msgs: make(chan *jsonrpc.Message), stop: make(chan struct{}), exited: make(chan struct{}),
	}
	go s.read(c, r.Method)
	return s, nil
}

func (s *Subscription) read(c *StatelessClient, method string) {
	defer close(s.exited)
	defer close(s.msgs)
	er := NewEventReader(&commentCounter{r: s.body, bol: true, n: &s.comments})
	for {
		ev, err := er.Next()
		if err != nil {
			s.err = err
			select {
			case <-s.stop:
				s.err = ErrSubscriptionClosed
			default:
			}
			return
		}
		if ev.Data == "" {
			continue
		}
		m, err := c.decode(method, []byte(ev.Data))
		if err != nil {
			s.err = err
			return
		}
		select {
		case s.msgs <- m:
		case <-s.stop:
			s.err = ErrSubscriptionClosed
			return
		}
	}
}

// Next returns the next message of the stream, or an error when the stream
// ended (io.EOF when the server ended it) or ctx ended first.
func (s *Subscription) Next(ctx context.Context) (*jsonrpc.Message, error) {
	select {
	case m, ok := <-s.msgs:
		if !ok {
			return nil, s.err
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Comments returns how many comment lines (keep-alives) arrived so far.
func (s *Subscription) Comments() int64 { return s.comments.Load() }

// Close closes the stream, which on this wire cancels the request, and
// waits until the stream is no longer read.
func (s *Subscription) Close() error {
	s.once.Do(func() {
		close(s.stop)
		s.body.Close()
	})
	<-s.exited
	return nil
}

// commentCounter counts the lines of an event stream that start with a
// colon (comments) as they pass.
type commentCounter struct {
	r   io.Reader
	bol bool
	n   *atomic.Int64
}

func (c *commentCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if c.bol && b == ':' {
			c.n.Add(1)
		}
		c.bol = b == '\n'
	}
	return n, err
}
