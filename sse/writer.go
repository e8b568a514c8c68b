package sse

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ContentType is the media type of an event stream.
const ContentType = "text/event-stream"

// Event is one server-sent event. Empty fields are not written, except
// Data: an event always has a data field, so an event with only an ID
// (a "priming" event) is still dispatched to the client.
type Event struct {
	ID    string
	Name  string
	Data  []byte
	Retry time.Duration
}

// Writer writes events to one HTTP response. It is not safe for concurrent
// use; callers serialize writes.
type Writer struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	conn net.Conn        // set when the stream owns its connection (Hijack)
	gone chan struct{}   // closed when a hijacked connection's client hung up
	raw  syscall.RawConn // conn's descriptor, while the shared watcher watches it
	// token names the connection in the shared watcher's set.
	token uint32
	buf   []byte

	mu     sync.Mutex // guards the fields below, for the watching goroutine
	ended  bool
	onGone func()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// NewWriter prepares w for an event stream and writes the status line with
// the given status (normally 200). Extra headers must be set on w before.
func NewWriter(w http.ResponseWriter, status int) *Writer {
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	w.WriteHeader(status)
	sw := &Writer{w: w, rc: http.NewResponseController(w)}
	_ = sw.rc.Flush()
	return sw
}

// Send writes one event and flushes it.
func (s *Writer) Send(e Event) error {
	bp := bufPool.Get().(*[]byte)
	b := AppendEvent((*bp)[:0], e)
	err := s.write(b)
	*bp = b[:0]
	bufPool.Put(bp)
	return err
}

// write sends b and flushes it.
func (s *Writer) write(b []byte) error {
	if s.conn != nil {
		_, err := s.conn.Write(b)
		return err
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// Comment writes a comment line, which clients ignore; it keeps idle
// connections (and the proxies on their way) from timing out.
func (s *Writer) Comment(text string) error {
	s.buf = append(s.buf[:0], ": "...)
	s.buf = append(s.buf, text...)
	s.buf = append(s.buf, "\n\n"...)
	return s.write(s.buf)
}

// SetWriteDeadline bounds how long the next writes may block on a client
// that does not read.
func (s *Writer) SetWriteDeadline(t time.Time) error {
	if s.conn != nil {
		return s.conn.SetWriteDeadline(t)
	}
	return s.rc.SetWriteDeadline(t)
}

// AppendEvent appends the wire form of e to dst. Lines of Data may end
// in LF, CRLF or CR, the three line ends of the event-stream format; each
// becomes a data line of its own, so the client reads them back joined by
// LF. ID and Name are single lines: CR and LF are left out of them (and NUL
// out of ID, which would make clients ignore it), so that no value can add
// fields or events to the stream.
func AppendEvent(dst []byte, e Event) []byte {
	if e.ID != "" {
		dst = appendField(dst, "id: ", e.ID, "\r\n\x00")
	}
	if e.Name != "" {
		dst = appendField(dst, "event: ", e.Name, "\r\n")
	}
	if e.Retry > 0 {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, e.Retry.Milliseconds(), 10)
		dst = append(dst, '\n')
	}
	data := e.Data
	for {
		dst = append(dst, "data: "...)
		i := lineEnd(data)
		if i < 0 {
			dst = append(dst, data...)
			dst = append(dst, '\n')
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(dst, '\n')
}

// lineEnd returns the index of the first CR or LF in b, or -1. Two
// IndexByte calls, which are vectorized, beat one IndexAny on large data.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// appendField appends a one-line field, leaving out the bytes in drop.
func appendField(dst []byte, prefix, value, drop string) []byte {
	dst = append(dst, prefix...)
	for {
		i := strings.IndexAny(value, drop)
		if i < 0 {
			break
		}
		dst = append(dst, value[:i]...)
		value = value[i+1:]
	}
	dst = append(dst, value...)
	return append(dst, '\n')
}
