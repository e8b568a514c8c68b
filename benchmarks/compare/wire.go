package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The exact bytes every server is sent. The session era's tools/call
// carries no _meta; the 2026-07-28 one carries the per-request _meta and
// its headers (see statelessHeader).
const (
	sessionVersion   = "2025-11-25"
	statelessVersion = "2026-07-28"
)

var (
	initializeBody    = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"compare","version":"1.0.0"}}}`)
	initializedBody   = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	sessionCallBody   = []byte(`{"jsonrpc":"2.0","id":1000000000,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	statelessCallBody = []byte(`{"jsonrpc":"2.0","id":1000000000,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"compare","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)

	wantText = []byte(`Hello, Ada!`)
)

func postHeader() http.Header {
	return http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
}

// sessionHeader is what a session-era request after initialize carries;
// id is "" for the baseline, which opens no session.
func sessionHeader(id string) http.Header {
	h := postHeader()
	h.Set("Mcp-Protocol-Version", sessionVersion)
	if id != "" {
		h.Set("Mcp-Session-Id", id)
	}
	return h
}

func statelessHeader() http.Header {
	h := postHeader()
	h.Set("Mcp-Protocol-Version", statelessVersion)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "greet")
	return h
}

// newHTTPClient keeps one connection per worker alive between requests.
func newHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true,
		IdleConnTimeout: time.Minute,
	}}
}

// callID is the placeholder id of the tools/call bodies: each call sends
// it replaced by a fresh number of the same width, as a client numbers
// its requests (a server may hold an id while its request is in flight,
// and MCP forbids reusing one within a session).
const callID = `"id":1000000000,`

// calls numbers the tools/call requests of the whole run, so that no two
// in a session carry one id, however the workers share sessions.
var calls atomic.Uint64

// exchange is one request a worker sends over and over: the same request
// value, with a fresh reader on the same body bytes each time (a
// tools/call's id renumbered).
type exchange struct {
	client *http.Client
	req    *http.Request
	body   []byte
	idAt   int // where the digits of a tools/call's id start; -1: none
	status int
	want   []byte // nil: the answer's body is not checked
	buf    bytes.Buffer
}

func newExchange(client *http.Client, url string, h http.Header, body []byte, status int, want []byte) (*exchange, error) {
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header = h
	x := &exchange{client: client, req: req, body: body, status: status, want: want, idAt: bytes.Index(body, []byte(callID))}
	if x.idAt >= 0 {
		x.body = bytes.Clone(body) // renumbered in place
		x.idAt += len(`"id":`)
	}
	return x, nil
}

// do sends the request and checks the answer: the status, the expected
// text, and that it is neither a JSON-RPC error nor a tool error.
func (x *exchange) do() (*http.Response, error) {
	if x.idAt >= 0 {
		n := 1000000000 + calls.Add(1)%9000000000
		strconv.AppendUint(x.body[:x.idAt], n, 10)
	}
	x.req.Body = io.NopCloser(bytes.NewReader(x.body))
	x.req.ContentLength = int64(len(x.body))
	resp, err := x.client.Do(x.req)
	if err != nil {
		return nil, err
	}
	x.buf.Reset()
	_, err = x.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", x.req.URL, err)
	}
	b := x.buf.Bytes()
	if resp.StatusCode != x.status || (x.want != nil && !bytes.Contains(b, x.want)) ||
		bytes.Contains(b, []byte(`"isError":true`)) || bytes.Contains(b, []byte(`"error":{`)) {
		return nil, fmt.Errorf("%s: unexpected answer: HTTP %d %.300s", x.req.URL, resp.StatusCode, b)
	}
	return resp, nil
}

// openSession runs initialize and notifications/initialized and returns
// the session id, "" when the server opens none (the baseline only).
func openSession(client *http.Client, url string, sessions bool) (string, error) {
	x, err := newExchange(client, url, postHeader(), initializeBody, http.StatusOK, []byte(`"protocolVersion"`))
	if err != nil {
		return "", err
	}
	resp, err := x.do()
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if sessions && id == "" {
		return "", fmt.Errorf("initialize: %s answered no Mcp-Session-Id", url)
	}
	x, err = newExchange(client, url, sessionHeader(id), initializedBody, http.StatusAccepted, nil)
	if err != nil {
		return "", err
	}
	if _, err := x.do(); err != nil {
		return "", fmt.Errorf("notifications/initialized: %w", err)
	}
	return id, nil
}

// openSessions opens n sessions from workers goroutines and returns their
// ids.
func openSessions(client *http.Client, url string, n, workers int) ([]string, error) {
	ids := make([]string, n)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				id, err := openSession(client, url, true)
				if err != nil {
					errs[w] = err
					return
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// holdStreams opens a session-era GET stream per session id, each on a
// connection of its own, and returns once every server has answered 200
// with its headers. Closing the connections ends the streams.
func holdStreams(addr, path string, ids []string) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, len(ids))
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for _, id := range ids {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("GET stream: %w", err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Protocol-Version: %s\r\nMcp-Session-Id: %s\r\n\r\n",
			path, addr, sessionVersion, id)
	}
	// Read each answer's status line and headers, in order: the server
	// works on all of them meanwhile.
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		r := bufio.NewReader(c)
		status, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200 ") {
			closeAll()
			return nil, fmt.Errorf("GET stream: answer %q: %v", status, err)
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				closeAll()
				return nil, fmt.Errorf("GET stream headers: %w", err)
			}
			if line == "\r\n" {
				break
			}
		}
		_ = c.SetReadDeadline(time.Time{})
	}
	return conns, nil
}
