package sse

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hijackServer serves event streams that take over their connection and
// hands each one to the test.
func hijackServer(t *testing.T) (addr string, streams <-chan *Writer) {
	t.Helper()
	ch := make(chan *Writer, 128)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := Hijack(w)
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		ch <- s
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), ch
}

// openStream connects, asks for a stream and reads its status line.
func openStream(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("status line %q: %v", line, err)
	}
	return c
}

// goneWithin waits for the end of a stream; the bound only keeps a
// broken build from hanging.
func goneWithin(t *testing.T, s *Writer, what string) {
	t.Helper()
	select {
	case <-s.Gone():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the stream was not told", what)
	}
}

func TestHijackedStreamNoticesTheClientHangingUp(t *testing.T) {
	addr, streams := hijackServer(t)
	c := openStream(t, addr)
	s := <-streams
	told := make(chan struct{})
	s.OnGone(func() { close(told) })

	// What the client sends after its request is read and ignored.
	if _, err := c.Write([]byte("ignored bytes\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(Event{Data: []byte("still here")}); err != nil {
		t.Fatalf("the stream ended when its client sent bytes: %v", err)
	}
	select {
	case <-s.Gone():
		t.Fatal("the stream ended when its client sent bytes")
	default:
	}

	c.Close()
	goneWithin(t, s, "client hung up")
	<-told
	_ = s.Close()

	// OnGone after the end runs at once.
	late := false
	s.OnGone(func() { late = true })
	if !late {
		t.Error("OnGone after the end did not run its function")
	}
}

func TestClosingAHijackedStreamEndsIt(t *testing.T) {
	addr, streams := hijackServer(t)
	c := openStream(t, addr)
	defer c.Close()
	s := <-streams
	told := make(chan struct{})
	s.OnGone(func() { close(told) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	goneWithin(t, s, "closed by the server")
	<-told
	// The client sees the end of the response.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			break
		}
	}
	if err := s.Close(); err == nil {
		t.Error("a second Close reported no error")
	}
}

// TestIdleStreamsCostNoGoroutine: on Linux, the hijacked streams share one
// watcher, so a thousand open streams take no goroutine each.
func TestIdleStreamsCostNoGoroutine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("streams share a watcher on Linux only")
	}
	addr, streams := hijackServer(t)
	const n = 200
	conns := make([]net.Conn, n)
	writers := make([]*Writer, n)
	base := runtime.NumGoroutine()
	for i := range n {
		conns[i] = openStream(t, addr)
		writers[i] = <-streams
	}
	// net/http's goroutine per connection ends once its handler returned.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+n/10 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine() - base; g > n/10 {
		t.Errorf("%d open streams hold %d goroutines", n, g)
	}
	for i, c := range conns {
		c.Close()
		goneWithin(t, writers[i], "client hung up")
	}
}
