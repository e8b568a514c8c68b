package sse

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// ErrNoHijack is returned by Hijack for a connection it cannot take
// over (HTTP/2, or a ResponseWriter without http.Hijacker).
var ErrNoHijack = errors.New("sse: the connection cannot be taken over")

// Hijack takes over an HTTP/1.x connection and starts an event stream on
// it directly, with status 200 and w's headers. A long-lived stream then
// costs no net/http goroutines or buffers: only the connection. The
// response is delimited by closing the connection, so Close ends it.
// Gone returns a channel closed when the client hangs up.
func Hijack(w http.ResponseWriter) (*Writer, error) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoHijack, err)
	}
	h := w.Header().Clone()
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Connection", "close")
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := append(make([]byte, 0, 256), "HTTP/1.1 200 OK\r\n"...)
	for _, k := range keys {
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "\r\n"...)
	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(b); err != nil {
		conn.Close()
		return nil, err
	}
	// Anything the client sent after its request is ignored; letting go
	// of net/http's buffered reader frees its memory.
	_, _ = brw.Reader.Discard(brw.Reader.Buffered())
	s := &Writer{conn: conn, gone: make(chan struct{})}
	watchHangup(s)
	return s, nil
}

// OnGone calls f once, when the client of a hijacked stream hangs up or
// the stream is closed: at once if that already happened. It runs on the
// goroutine that watches connections, shared by every stream on Linux;
// it must not block.
func (s *Writer) OnGone(f func()) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		f()
		return
	}
	s.onGone = f
	s.mu.Unlock()
}

// watch notices the client hanging up, where the shared watcher cannot:
// a read on the connection ends only with it.
func (s *Writer) watch() {
	var b [1]byte
	for {
		if _, err := s.conn.Read(b[:]); err != nil {
			break
		}
	}
	s.finish()
}

// finish marks the stream ended, once, and tells OnGone's function.
func (s *Writer) finish() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	f := s.onGone
	s.mu.Unlock()
	close(s.gone)
	if f != nil {
		f()
	}
}

// Gone returns a channel closed when the client of a hijacked stream hung
// up (or the stream was closed); nil for a normal stream.
func (s *Writer) Gone() <-chan struct{} { return s.gone }

// Hijacked reports whether the stream owns its connection.
func (s *Writer) Hijacked() bool { return s.conn != nil }

// Close ends a hijacked stream by closing its connection; it does nothing
// for a normal stream, which ends when its handler returns.
func (s *Writer) Close() error {
	if s.conn == nil {
		return nil
	}
	unwatchHangup(s)
	err := s.conn.Close()
	if s.raw != nil {
		// A closed socket leaves the watcher's set without a word; OnGone's
		// function runs apart, as it would on the watcher, since the
		// caller may hold a lock it takes.
		go s.finish()
	}
	return err
}
