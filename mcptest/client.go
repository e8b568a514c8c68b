package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// RequestHandler answers a server-to-client request (sampling,
// elicitation, roots). Return a result, or a *jsonrpc.Error.
type RequestHandler func(method string, params json.RawMessage) (any, *jsonrpc.Error)

// Client is an MCP client over Streamable HTTP (session era). Set its
// fields before the first call; the zero values are usable defaults.
type Client struct {
	URL string
	// HTTP is the client used; default http.DefaultClient.
	HTTP *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// Capabilities are declared at initialize.
	Capabilities mcp.ClientCapabilities
	// OnRequest answers server-to-client requests; without it they get
	// a method-not-found error.
	OnRequest RequestHandler
	// AnswerURL is where answers to server requests are posted; default
	// URL. Tests of several nodes point it at another node.
	AnswerURL string
	// OnMessage sees every JSON-RPC message the server sends, raw. For a
	// response, request is the method of the request it answers.
	OnMessage func(request string, msg []byte)

	// SessionID and Version are set by Initialize.
	SessionID string
	Version   string

	idMu      sync.Mutex
	ids       *atomic.Int64 // the last request id; shared with the clients At returns
	methods   sync.Map      // request id key -> method, for OnMessage
	cancelled sync.Map      // request id key -> struct{}: ids Cancel was told of
}

// At returns a client of the same session that sends to url: one client
// talking to several nodes behind a load balancer. It shares c's request
// ids, so that no id is used twice in the session, as MCP requires; the
// other fields are copied.
func (c *Client) At(url string) *Client {
	o := &Client{URL: url, HTTP: c.HTTP, Header: c.Header.Clone(), Capabilities: c.Capabilities, OnRequest: c.OnRequest,
		AnswerURL: c.AnswerURL, OnMessage: c.OnMessage, SessionID: c.SessionID, Version: c.Version}
	o.ids = c.idCounter()
	return o
}

func (c *Client) idCounter() *atomic.Int64 {
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.ids == nil {
		c.ids = new(atomic.Int64)
	}
	return c.ids
}

// NewClient returns a client for the MCP endpoint at url.
func NewClient(url string) *Client { return &Client{URL: url, Header: http.Header{}} }

// Response is the answer to one request: the response message and
// everything the server sent before it on the same stream.
type Response struct {
	Status int
	Header http.Header
	// Streamed reports whether the answer came as an event stream.
	Streamed bool
	ID       jsonrpc.ID
	Result   json.RawMessage
	Error    *jsonrpc.Error
	// Notifications and Requests arrived on the stream before the response.
	Notifications []*jsonrpc.Message
	Requests      []*jsonrpc.Message
	// Events are the raw events of a streamed answer, priming events included.
	Events []Event
	// Body is the raw body of a non-streamed answer.
	Body []byte
}

// Decode unmarshals the result into v.
func (r *Response) Decode(v any) error {
	if r.Error != nil {
		return r.Error
	}
	if r.Result == nil {
		return fmt.Errorf("mcptest: no result (HTTP %d): %s", r.Status, r.Body)
	}
	return json.Unmarshal(r.Result, v)
}

// StatusError is returned when the server answers with a status that
// carries no JSON-RPC response.
type StatusError struct {
	Status int
	Body   []byte
}

func (e *StatusError) Error() string { return fmt.Sprintf("mcptest: HTTP %d: %s", e.Status, e.Body) }

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// NewRequest builds an HTTP request to the endpoint with the client's
// headers, session and protocol version.
func (c *Client) NewRequest(ctx context.Context, method string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.SessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.SessionID)
	}
	if c.Version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.Version)
	}
	return req, nil
}

// Initialize opens a session at version and sends notifications/initialized.
func (c *Client) Initialize(ctx context.Context, version string) (*mcp.InitializeResult, error) {
	c.SessionID, c.Version = "", ""
	resp, err := c.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{
		ProtocolVersion: version, Capabilities: c.Capabilities,
		ClientInfo: mcp.Implementation{Name: "mcptest", Version: "1.0.0"},
	})
	if err != nil {
		return nil, err
	}
	var res mcp.InitializeResult
	if err := resp.Decode(&res); err != nil {
		return nil, err
	}
	c.SessionID = resp.Header.Get("Mcp-Session-Id")
	c.Version = res.ProtocolVersion
	if status, err := c.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
		return nil, err
	} else if status != http.StatusAccepted {
		return nil, fmt.Errorf("mcptest: notifications/initialized: %w", &StatusError{Status: status})
	}
	return &res, nil
}

// Call sends a request and reads its answer.
func (c *Client) Call(ctx context.Context, method string, params any) (*Response, error) {
	return c.CallID(ctx, c.NewID(), method, params)
}

// NewID returns a fresh request id of the session, for a call whose id
// the test needs while it runs: to Cancel it, or to find what the server
// says about it. CallID sends the call.
func (c *Client) NewID() jsonrpc.ID { return jsonrpc.IntID(c.idCounter().Add(1)) }

// CallID is Call with the request id id, which NewID handed out.
func (c *Client) CallID(ctx context.Context, id jsonrpc.ID, method string, params any) (*Response, error) {
	body, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	c.methods.Store(id.Key(), method)
	defer c.methods.Delete(id.Key())
	return c.PostRaw(ctx, body, id)
}

// observe passes a server message to OnMessage.
func (c *Client) observe(msg []byte) {
	if c.OnMessage == nil {
		return
	}
	var env struct {
		ID     jsonrpc.ID `json:"id"`
		Method string     `json:"method"`
	}
	request := ""
	if json.Unmarshal(msg, &env) == nil && env.Method == "" && !env.ID.IsZero() {
		if m, ok := c.methods.Load(env.ID.Key()); ok {
			request = m.(string)
		}
	}
	c.OnMessage(request, msg)
}

func encodeRequest(id jsonrpc.ID, method string, params any) ([]byte, error) {
	var p json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("mcptest: encode params: %w", err)
		}
		p = b
	}
	return jsonrpc.AppendRequest(nil, id, method, p), nil
}

// PostRaw posts body and reads the answer to request id (which may be
// nil for bodies that carry no request). A non-2xx status with a JSON-RPC
// error body comes back as a Response with Error set.
func (c *Client) PostRaw(ctx context.Context, body []byte, id jsonrpc.ID) (*Response, error) {
	req, err := c.NewRequest(ctx, http.MethodPost, body)
	if err != nil {
		return nil, err
	}
	hr, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer hr.Body.Close()
	return c.ReadAnswer(hr, id)
}

// ReadAnswer reads an HTTP response to a POST: JSON, or an event stream
// read until the response to id arrives (answering server requests on
// the way).
func (c *Client) ReadAnswer(hr *http.Response, id jsonrpc.ID) (*Response, error) {
	resp := &Response{Status: hr.StatusCode, Header: hr.Header}
	mt, _, _ := mime.ParseMediaType(hr.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		resp.Streamed = true
		return resp, c.readStream(hr.Body, id, resp)
	}
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, err
	}
	resp.Body = b
	b = bytes.TrimSpace(b)
	if id != nil && hr.StatusCode < 300 && string(b) == "[]" {
		// The answer of an ended request: no message for it.
		return resp, c.unanswered(id, ErrNoAnswer)
	}
	if len(b) == 0 {
		if hr.StatusCode >= 300 {
			return resp, &StatusError{Status: hr.StatusCode, Body: b}
		}
		return resp, nil
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil {
			for _, m := range batch {
				c.observe(m)
			}
		}
	} else {
		c.observe(b)
	}
	var m jsonrpc.Message
	if b[0] == '{' && json.Unmarshal(b, &m) == nil {
		resp.ID, resp.Result, resp.Error = m.ID, m.Result, m.Error
		return resp, nil
	}
	if hr.StatusCode >= 300 {
		return resp, &StatusError{Status: hr.StatusCode, Body: b}
	}
	return resp, nil
}

// ErrStreamEnded is returned when a stream ends before the response.
var ErrStreamEnded = errors.New("mcptest: the stream ended before the response arrived")

// ErrNoAnswer is returned when the server ended a request with no message
// for it (an empty JSON array) that Cancel was not told of.
var ErrNoAnswer = errors.New("mcptest: the server ended the request without an answer")

func (c *Client) readStream(r io.Reader, id jsonrpc.ID, resp *Response) error {
	er := NewEventReader(r)
	for {
		ev, err := er.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return c.unanswered(id, ErrStreamEnded)
			}
			return err
		}
		resp.Events = append(resp.Events, ev)
		if ev.Data == "" {
			continue
		}
		m, err := c.handle([]byte(ev.Data))
		if err != nil {
			return err
		}
		switch m.Kind() {
		case jsonrpc.KindNotification:
			resp.Notifications = append(resp.Notifications, m)
		case jsonrpc.KindRequest:
			resp.Requests = append(resp.Requests, m)
		default:
			if id == nil || m.ID.Key() == id.Key() {
				resp.ID, resp.Result, resp.Error = m.ID, m.Result, m.Error
				return nil
			}
		}
	}
}

// handle decodes a server message, shows it to OnMessage and answers it
// if it is a request.
func (c *Client) handle(data []byte) (*jsonrpc.Message, error) {
	c.observe(data)
	var m jsonrpc.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("mcptest: server sent invalid JSON %q: %w", data, err)
	}
	if m.Kind() == jsonrpc.KindRequest {
		go c.answer(&m)
	}
	return &m, nil
}

// answer posts the client's response to a server request. It runs on its
// own goroutine, as a real client does, so the stream keeps being read.
func (c *Client) answer(m *jsonrpc.Message) {
	var body []byte
	if c.OnRequest == nil {
		body = jsonrpc.AppendError(nil, m.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "mcptest: no OnRequest handler"))
	} else if res, jerr := c.OnRequest(m.Method, m.Params); jerr != nil {
		body = jsonrpc.AppendError(nil, m.ID, jerr)
	} else {
		b, err := json.Marshal(res)
		if err != nil {
			body = jsonrpc.AppendError(nil, m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%v", err))
		} else {
			body = jsonrpc.AppendResult(nil, m.ID, b)
		}
	}
	req, err := c.NewRequest(context.Background(), http.MethodPost, body)
	if err != nil {
		return
	}
	if c.AnswerURL != "" {
		if u, err := url.Parse(c.AnswerURL); err == nil {
			req.URL, req.Host = u, u.Host
		}
	}
	if hr, err := c.httpClient().Do(req); err == nil {
		_, _ = io.Copy(io.Discard, hr.Body)
		hr.Body.Close()
	}
}

// ErrCancelled is what a call returns once Cancel was told of it and the
// server ended it without an answer, as MCP has servers do for a cancelled
// request.
var ErrCancelled = errors.New("mcptest: the request was cancelled, and a server sends no answer to a cancelled request")

// Cancel cancels the session-era request id (from NewID) with
// notifications/cancelled; the call waiting for its answer then returns
// ErrCancelled. It fails unless the server accepts the notification (202).
// On the 2026-07-28 wire a request is cancelled by closing its stream:
// cancel the context of the call instead.
func (c *Client) Cancel(ctx context.Context, id jsonrpc.ID, reason string) error {
	c.cancelled.Store(id.Key(), struct{}{})
	params := map[string]any{"requestId": id}
	if reason != "" {
		params["reason"] = reason
	}
	status, err := c.Notify(ctx, "notifications/cancelled", params)
	if err == nil && status != http.StatusAccepted {
		err = fmt.Errorf("mcptest: notifications/cancelled: HTTP %d", status)
	}
	return err
}

// unanswered is the error of a call whose answer did not come: ErrCancelled
// when Cancel was told of it, otherwise err.
func (c *Client) unanswered(id jsonrpc.ID, err error) error {
	if id == nil {
		return err
	}
	if _, ok := c.cancelled.Load(id.Key()); ok {
		return ErrCancelled
	}
	return err
}

// Notify sends a notification and returns the HTTP status.
func (c *Client) Notify(ctx context.Context, method string, params any) (int, error) {
	body, err := encodeRequest(nil, method, params)
	if err != nil {
		return 0, err
	}
	return c.status(ctx, http.MethodPost, body)
}

// Delete ends the session and returns the HTTP status.
func (c *Client) Delete(ctx context.Context) (int, error) {
	return c.status(ctx, http.MethodDelete, nil)
}

// status sends a request whose answer is only a status.
func (c *Client) status(ctx context.Context, method string, body []byte) (int, error) {
	req, err := c.NewRequest(ctx, method, body)
	if err != nil {
		return 0, err
	}
	hr, err := c.httpClient().Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, hr.Body)
	hr.Body.Close()
	return hr.StatusCode, nil
}

// Stream is an open GET event stream.
type Stream struct {
	c      *Client
	Status int
	Header http.Header
	body   io.ReadCloser
	er     *EventReader
	// LastEventID is the id of the last event read.
	LastEventID string
}

// Listen opens the session's standalone GET stream. lastEventID resumes a
// stream after that event ("" opens the standalone stream).
func (c *Client) Listen(ctx context.Context, lastEventID string) (*Stream, error) {
	req, err := c.NewRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	hr, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	if hr.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(hr.Body)
		hr.Body.Close()
		return nil, &StatusError{Status: hr.StatusCode, Body: b}
	}
	return &Stream{c: c, Status: hr.StatusCode, Header: hr.Header, body: hr.Body, er: NewEventReader(hr.Body)}, nil
}

// Next returns the next message of the stream, skipping events without
// data. Server requests are answered as they arrive.
func (s *Stream) Next() (*jsonrpc.Message, Event, error) {
	for {
		ev, err := s.er.Next()
		if err != nil {
			return nil, ev, err
		}
		if ev.ID != "" {
			s.LastEventID = ev.ID
		}
		if ev.Data == "" {
			continue
		}
		m, err := s.c.handle([]byte(ev.Data))
		return m, ev, err
	}
}

// NextEvent returns the next raw event, data-less ones included.
func (s *Stream) NextEvent() (Event, error) {
	ev, err := s.er.Next()
	if err == nil && ev.ID != "" {
		s.LastEventID = ev.ID
	}
	return ev, err
}

// Close closes the stream.
func (s *Stream) Close() error { return s.body.Close() }

// ID formats a request id the way Call numbers them, for tests that
// build raw bodies.
func ID(n int) jsonrpc.ID { return jsonrpc.ID(strconv.Itoa(n)) }
