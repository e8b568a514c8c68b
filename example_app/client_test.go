package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// protocolVersion is the MCP revision the test client speaks.
const protocolVersion = "2025-11-25"

// message is any JSON-RPC message: a request, a notification or a response.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// client is a minimal MCP client of the Streamable HTTP transport. It is
// written against the wire format, not with the framework's types, so the
// tests see what any client sees.
type client struct {
	t       *testing.T
	http    *http.Client
	url     string
	token   string // bearer token, if any
	session string
	lastID  int
	// answer returns the result of a server-to-client request; nil makes
	// such a request fail the test.
	answer func(method string, params json.RawMessage) any
}

// newClient returns a client presenting a token the demo issuer minted
// for u, with u's scopes.
func newClient(t *testing.T, srv *httptest.Server, u user) *client {
	return newTokenClient(t, srv, mint(t, srv, u, grantedScopes(u)))
}

// newTokenClient returns a client presenting token.
func newTokenClient(t *testing.T, srv *httptest.Server, token string) *client {
	return &client{t: t, http: srv.Client(), url: srv.URL + mcpPath, token: token}
}

// initialize opens a session declaring the client capabilities and
// returns the initialize result.
func (c *client) initialize(capabilities map[string]any) json.RawMessage {
	c.t.Helper()
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	res, _ := c.call("initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    capabilities,
		"clientInfo":      map[string]any{"name": "example-app-test", "version": "1.0"},
	})
	if res.Error != nil {
		c.t.Fatalf("initialize: %+v", res.Error)
	}
	resp := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	drain(resp)
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d, want 202", resp.StatusCode)
	}
	return res.Result
}

// result calls method, fails the test on a JSON-RPC error and decodes the
// result into v.
func (c *client) result(method string, params, v any) {
	c.t.Helper()
	res, _ := c.call(method, params)
	if res.Error != nil {
		c.t.Fatalf("%s: error %d %q", method, res.Error.Code, res.Error.Message)
	}
	if err := json.Unmarshal(res.Result, v); err != nil {
		c.t.Fatalf("%s: decode result %s: %v", method, res.Result, err)
	}
}

// call sends a request and returns its response and the notifications
// that arrived before it, answering server-to-client requests meanwhile.
func (c *client) call(method string, params any) (*message, []message) {
	c.t.Helper()
	c.lastID++
	id := strconv.Itoa(c.lastID)
	resp := c.post(map[string]any{"jsonrpc": "2.0", "id": c.lastID, "method": method, "params": params})
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("%s: status %d: %s", method, resp.StatusCode, body)
	}
	if method == "initialize" {
		c.session = resp.Header.Get("Mcp-Session-Id")
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		var m message
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			c.t.Fatalf("%s: decode JSON answer: %v", method, err)
		}
		if string(m.ID) != id {
			c.t.Fatalf("%s: answer has id %s, want %s", method, m.ID, id)
		}
		return &m, nil
	case "text/event-stream":
		res, notes := c.readStream(method, id, resp.Body)
		if res == nil {
			c.t.Fatalf("%s: the stream ended before the answer", method)
		}
		return res, notes
	}
	c.t.Fatalf("%s: unexpected Content-Type %q", method, resp.Header.Get("Content-Type"))
	return nil, nil
}

// readStream reads SSE events until the response with id arrives, and
// returns a nil response if the stream ends first.
func (c *client) readStream(method, id string, body io.Reader) (*message, []message) {
	c.t.Helper()
	var (
		notes []message
		data  []string
	)
	r := bufio.NewReader(body)
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && len(data) > 0:
			event := strings.Join(data, "\n")
			data = nil
			if event == "" {
				break // a priming event: only an id to resume from
			}
			var m message
			if err := json.Unmarshal([]byte(event), &m); err != nil {
				c.t.Fatalf("%s: decode event %q: %v", method, event, err)
			}
			switch {
			case m.Method != "" && m.ID != nil:
				c.reply(&m)
			case m.Method != "":
				notes = append(notes, m)
			case string(m.ID) == id:
				return &m, notes
			default:
				c.t.Fatalf("%s: stream carried the answer to another request: %s", method, m.ID)
			}
		}
		if err == io.EOF {
			return nil, notes
		}
		if err != nil {
			c.t.Fatalf("%s: read stream: %v", method, err)
		}
	}
}

// reply answers a server-to-client request.
func (c *client) reply(req *message) {
	c.t.Helper()
	if c.answer == nil {
		c.t.Fatalf("unexpected server request %s", req.Method)
	}
	resp := c.post(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": c.answer(req.Method, req.Params)})
	drain(resp)
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("answer to %s: status %d, want 202", req.Method, resp.StatusCode)
	}
}

// post sends one JSON-RPC message with the transport's headers.
func (c *client) post(msg any) *http.Response {
	c.t.Helper()
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// drain reads and closes a body so its connection can be reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// toolResult is the part of a tools/call result the tests check.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// text joins the text contents.
func (r *toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// callTool calls a tool that must answer with a result (possibly isError).
func (c *client) callTool(name string, args any, meta map[string]any) (*toolResult, []message) {
	c.t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	res, notes := c.call("tools/call", params)
	if res.Error != nil {
		c.t.Fatalf("tools/call %s: error %d %q", name, res.Error.Code, res.Error.Message)
	}
	var tr toolResult
	if err := json.Unmarshal(res.Result, &tr); err != nil {
		c.t.Fatalf("tools/call %s: decode %s: %v", name, res.Result, err)
	}
	return &tr, notes
}
