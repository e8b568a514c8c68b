package direct

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
)

// response is an in-memory http.ResponseWriter that turns what the
// handler writes back into messages: a JSON body is one message (or a
// batch's answers) once the handler returns, and each event of an event
// stream is a message as soon as it is written.
type response struct {
	header  http.Header
	emit    func([]byte)
	ctx     context.Context // the request's: once it ends, nothing more is emitted
	id      jsonrpc.ID      // the request's id, when one request was sent
	discard bool            // nothing the handler writes is for the client
	events  bool            // only events are for the client (a GET: its JSON is a refusal)

	status int
	stream bool    // the answer is an event stream
	buf    *[]byte // the JSON body, or event-stream bytes not parsed yet
	data   []byte  // the data of the event being read
	inData bool    // the event being read has a data field
	bare   bool    // the last event had no data: an id or retry only
	lastID string
	retry  time.Duration
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooled is the largest buffer put back in bufPool, so that one large
// answer does not stay allocated for good.
const maxPooled = 64 << 10

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	r.status = status
	r.stream = strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream")
}

func (r *response) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.discard {
		return len(b), nil
	}
	if r.buf == nil {
		r.buf = bufPool.Get().(*[]byte)
		*r.buf = (*r.buf)[:0]
	}
	*r.buf = append(*r.buf, b...)
	if r.stream {
		r.parse()
	}
	return len(b), nil
}

// Flush is a no-op: every event is passed on as soon as it is written.
func (r *response) Flush() {}

// SetReadDeadline accepts any deadline: the body is in memory, and
// reading it cannot block. (Without it, http.ResponseController builds
// a "not supported" error for every body the transport bounds.)
func (r *response) SetReadDeadline(time.Time) error { return nil }

// parse reads the complete lines of the event stream in buf. The server's
// event writer ends lines in LF and splits data at CR, so LF is the only
// line end to look for.
func (r *response) parse() {
	b := *r.buf
	start := 0
	for {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			break
		}
		r.line(b[start : start+i])
		start += i + 1
	}
	n := copy(b, b[start:])
	*r.buf = b[:n]
}

func (r *response) line(l []byte) {
	if len(l) == 0 {
		r.dispatch()
		return
	}
	if l[0] == ':' {
		return // a comment: keep-alive
	}
	field, value, _ := bytes.Cut(l, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data":
		if r.inData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.inData = true
	case "id":
		r.lastID = string(value)
	case "retry":
		if ms, err := strconv.Atoi(string(value)); err == nil {
			r.retry = time.Duration(ms) * time.Millisecond
		}
	}
}

// dispatch ends an event: its data, if any, is a message.
func (r *response) dispatch() {
	r.bare = len(r.data) == 0
	if !r.bare {
		r.send(r.data)
	}
	r.data, r.inData = r.data[:0], false
}

func (r *response) send(msg []byte) {
	if r.ctx.Err() != nil {
		return // cancelled or closed: no more messages for this request
	}
	r.emit(msg)
}

// finish passes on a JSON answer once the handler has returned, and gives
// the buffer back.
func (r *response) finish() {
	if r.buf == nil {
		return
	}
	if !r.stream && !r.events {
		if body := bytes.TrimSpace(*r.buf); len(body) > 0 {
			r.answer(body)
		}
	}
	if cap(*r.buf) <= maxPooled {
		bufPool.Put(r.buf)
	}
	r.buf = nil
}

// answer passes on a JSON answer. A refusal of a request that carries no
// id (written before the body was read) gets the request's, and an answer
// that is not JSON-RPC (a page of some middleware) becomes an internal
// error, so that nothing but JSON-RPC reaches the client.
func (r *response) answer(body []byte) {
	if string(body) == "[]" {
		return // no answer: a cancelled request's (HTTP sends it an empty array)
	}
	if r.status < 300 && json.Valid(body) {
		r.send(body)
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil && len(m["error"]) > 0 && string(m["jsonrpc"]) == `"2.0"` {
		if id := m["id"]; !r.id.IsZero() && (len(id) == 0 || string(id) == "null") {
			b := append([]byte(`{"jsonrpc":"2.0","id":`), r.id...)
			b = append(append(b, `,"error":`...), m["error"]...)
			r.send(append(b, '}'))
			return
		}
		r.send(body)
		return
	}
	if r.id.IsZero() {
		return // not one request's answer: nobody waits for it
	}
	e := jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the server answered HTTP %d with no JSON-RPC message", r.status)
	r.send(jsonrpc.AppendError(nil, r.id, e))
}

// cut reports whether an event stream ended early, as SSE polling does
// (an event with an id and no data, then the end): the answer is to be
// resumed after lastID.
func (r *response) cut() bool {
	return r.stream && r.bare && r.lastID != "" && r.status == http.StatusOK
}
