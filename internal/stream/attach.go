package stream

import (
	"net/http"
	"strconv"

	"github.com/specter-mcp/specter/sse"
)

// AttachPOST attaches the connection that sent the POST; the answer is
// undecided until the first message. Pass the returned generation to
// Await.
func (s *Stream) AttachPOST(w http.ResponseWriter) (gen uint64) {
	s.mu.Lock()
	s.rw = w
	s.attach++
	gen = s.attach
	s.mu.Unlock()
	s.armKeepAlive()
	return gen
}

// Await waits for a POST's answer to complete, the client to go away, or
// the stream to let the connection go, then writes a plain JSON answer
// (an array if batch) if nothing was streamed. It reports whether the
// stream was delivered whole, so nothing needs keeping: call Drop.
func (s *Stream) Await(w http.ResponseWriter, req *http.Request, gen uint64, batch bool) (delivered bool) {
	s.mu.Lock()
	answered := s.complete
	var done, kick <-chan struct{}
	if !answered {
		done, kick = s.waitOn()
	}
	s.mu.Unlock()
	if !answered {
		select {
		case <-done:
		case <-req.Context().Done():
		case <-kick:
		}
	}
	if evs, status, ok := s.takeJSON(gen); ok {
		writeJSON(w, status, evs, batch)
		return true
	}
	return s.detach(gen)
}

// takeJSON returns the kept responses for a plain JSON answer when the
// answer is complete and nothing was streamed, and marks it as JSON; the
// answer's headers are set on w.
func (s *Stream) takeJSON(gen uint64) ([]event, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mode != modeUndecided || !s.complete || s.attach != gen || s.rw == nil {
		return nil, 0, false
	}
	for k, v := range s.headers {
		s.rw.Header()[k] = v
	}
	s.mode = modeJSON
	s.rw = nil
	s.stopKeepAlive()
	evs := s.events
	s.events = nil
	return evs, s.status, true
}

func writeJSON(w http.ResponseWriter, status int, evs []event, batch bool) {
	h := w.Header()
	if status == 0 {
		status = http.StatusOK
	}
	if !batch && len(evs) == 1 {
		// Both values in one allocation; the keys are canonical.
		v := []string{"application/json", strconv.Itoa(len(evs[0].data))}
		h["Content-Type"], h["Content-Length"] = v[:1:1], v[1:]
		w.WriteHeader(status)
		_, _ = w.Write(evs[0].data)
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := make([]byte, 0, 256)
	b = append(b, '[')
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, ev.data...)
	}
	_, _ = w.Write(append(b, ']'))
}

// Serve attaches a GET (or listen) request as an event stream, replaying
// events after seq `after`, and holds it until the stream completes, the
// client leaves or the stream lets the connection go. A standalone
// stream takes the connection over when it can (sse.Hijack, HTTP/1.x):
// it may stay open for hours without a goroutine or net/http's buffers,
// and Serve returns at once. release runs once when the connection ends.
// Serve reports whether a POST answer was delivered whole on this
// connection, so nothing needs keeping: call Drop.
func (s *Stream) Serve(w http.ResponseWriter, req *http.Request, after uint64, release func()) (delivered bool) {
	return s.serve(w, req, after, nil, release)
}

// ServeMoved serves, on this node's GET stream s, a GET that resumes
// from, the GET stream of a node that is gone: the events from buffered
// after fromAfter, with their ids, a notice that messages sent while no
// node held the stream may be lost, then s's events after `after`, as
// Serve does. The client follows s from then on.
func (s *Stream) ServeMoved(w http.ResponseWriter, req *http.Request, after uint64, from string, fromAfter uint64, release func()) {
	s.serve(w, req, after, &moved{id: from, after: fromAfter}, release)
}

// moved is a dead node's GET stream that a connection moves over from.
type moved struct {
	id    string
	after uint64
}

func (s *Stream) serve(w http.ResponseWriter, req *http.Request, after uint64, from *moved, release func()) (delivered bool) {
	if s.opts.Standalone {
		if sw, err := sse.Hijack(w); err == nil {
			s.attachHijacked(sw, after, from, release)
			return false
		}
	}
	defer release()
	gen, done, kick := s.attachStream(w, after, from)
	select {
	case <-done:
	case <-req.Context().Done():
	case <-kick:
	}
	return s.detach(gen) && !s.opts.Standalone
}

// attachHijacked attaches a connection the stream owns, replaying events
// after seq; release runs when that connection ends.
func (s *Stream) attachHijacked(w *sse.Writer, after uint64, from *moved, release func()) {
	s.mu.Lock()
	if s.w != nil || s.rw != nil {
		s.dropWriter()
		s.rw = nil
		s.signal()
	}
	if s.complete {
		s.mu.Unlock()
		_ = w.Close()
		release()
		return
	}
	s.mode = modeSSE
	s.attach++
	s.w, s.release, s.reserved = w, release, false
	if !s.replayMoved(from) || !s.primeAndReplay(after) {
		s.dropWriter() // closes w and releases it
		s.mu.Unlock()
		return
	}
	s.flushKept()
	s.mu.Unlock()
	w.OnGone(func() {
		s.mu.Lock()
		if s.w == w {
			s.dropWriter()
		}
		s.mu.Unlock()
	})
	s.armKeepAlive()
}

// attachStream attaches a GET connection as an event stream, replaying
// events after seq, and returns what the connection waits on. It replaces
// a connection already attached.
func (s *Stream) attachStream(w http.ResponseWriter, after uint64, from *moved) (gen uint64, done, kick <-chan struct{}) {
	s.mu.Lock()
	if s.w != nil || s.rw != nil {
		s.dropWriter()
		s.rw = nil
		s.signal()
	}
	// Drain a stale kick so this connection is not dropped at once.
	done, kick = s.waitOn()
	select {
	case <-s.kick:
	default:
	}
	s.mode = modeSSE
	s.attach++
	gen = s.attach
	s.w, s.reserved = sse.NewWriter(w, http.StatusOK), false
	if !s.replayMoved(from) || !s.primeAndReplay(after) {
		s.dropWriter()
		s.signal() // Serve lets the connection go
	}
	s.flushKept()
	s.mu.Unlock()
	s.armKeepAlive()
	return gen, done, kick
}

// primeAndReplay primes a connection just attached and replays the
// events after seq; false: the backplane did not answer (see replay).
// Called with s.mu held.
func (s *Stream) primeAndReplay(after uint64) bool {
	s.prime(after)
	return s.replay(after)
}

// detach lets go of connection generation gen, if it is still attached,
// and reports whether the stream is complete and was delivered whole on
// that connection.
func (s *Stream) detach(gen uint64) (delivered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attach != gen {
		return false
	}
	delivered = s.complete && s.w != nil
	if s.mode == modeUndecided {
		s.orphan = true
	}
	s.dropWriter()
	s.rw = nil
	s.stopKeepAlive()
	return delivered
}
