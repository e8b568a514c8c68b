// Package stream is the state machine of one MCP response stream: the
// answer to a POST, a session's standalone GET stream, or a 2026-07-28
// subscriptions/listen stream.
//
// Messages are appended by whoever produces them (the handler, its
// asynchronous work, notifications) and written at once to the connection
// attached to the stream, if any. In a session, once the answer is an
// event stream, every message also goes to the backplane's buffer for the
// stream, where it stays until the stream is complete and delivered, so
// that a client whose connection dropped resumes with GET and
// Last-Event-ID, on this node or another (Node.Tail), and loses nothing.
//
// A POST answer starts undecided: if the response is the first message it
// is written as application/json; the first notification or request, or a
// keep-alive tick, turns the answer into an event stream.
package stream

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/sse"
)

type mode uint8

const (
	modeUndecided mode = iota // nothing sent yet: the answer may still be plain JSON
	modeSSE
	modeJSON
)

// event is one message of a stream, kept for replay.
type event struct {
	seq      uint64
	data     []byte
	response bool
}

// Options describe a new stream.
type Options struct {
	// Session is the session the stream belongs to; "" on the 2026-07-28
	// wire. Only a session's streams carry event ids and are kept in the
	// backplane for resumption.
	Session string
	// ID names the stream within the session; event ids are ID_seq.
	ID string
	// Priming: the client expects a priming event (2025-11-25+).
	Priming bool
	// Standalone streams (GET and listen streams) are event streams from
	// the start and never complete by themselves.
	Standalone bool
	// Pending is the number of requests a POST answer waits for.
	Pending int
	// Batch: the POST answers a JSON-RPC batch, each element with its own
	// response, so one element's refusal sets no HTTP status for all (see
	// SetStatus).
	Batch bool
	// Orphaned runs when the stream completes after its client left
	// before the answer was decided: nobody can ask for it any more.
	Orphaned func(*Stream)
	// Requests are the messages of the POST; the ids of its requests go
	// in the stream's head (see Source), so that the requests are ended
	// with an error if this node dies, even before its lease records them.
	Requests []*jsonrpc.Message
}

// Stream is one response stream. Its methods are safe for concurrent use.
type Stream struct {
	n       *Node
	opts    Options
	status  int         // HTTP status of a plain JSON answer; 0 means 200
	headers http.Header // headers of a plain JSON answer
	// done and kick are made when a connection first waits on them: an
	// answer given at once needs neither (see waitOn).
	done    chan struct{}
	kick    chan struct{} // asks the attached connection to let go (CloseConn, replaced, failed)
	mu      sync.Mutex
	events  []event  // messages of an undecided answer, not yet persisted
	first   [1]event // events' first backing store: most answers are one message
	seq     uint64
	timeout time.Duration       // write timeout of the message being appended
	rw      http.ResponseWriter // attached connection, before it is an event stream
	w       *sse.Writer         // attached connection, as an event stream
	attach  uint64              // increments on every attach, so an old connection knows it was replaced
	release func()              // runs once when a hijacked connection ends
	pending int                 // requests still to be answered
	sent    uint64              // last seq written to a connection
	timer   *keepAliveTimer     // keep-alive
	// The flags last, together, so that the struct carries no padding.
	mode     mode
	ids      bool // events carry ids and are kept for resumption (session era)
	buffered bool // the backplane holds a buffer for this stream
	reserved bool // a connection is about to attach (Reserve)
	kicked   bool // a kick came before anyone waited for one
	orphan   bool // the POST connection left before the answer was decided
	complete bool
	stopped  bool     // Stop: the session ended or the node stops
	unsaved  *unsaved // events the backplane did not take yet; nil: none
}

// New returns a stream of this node.
func (n *Node) New(o Options) *Stream {
	s := &Stream{n: n, opts: o, ids: o.Session != "", pending: o.Pending}
	s.events = s.first[:0]
	if o.Standalone {
		// A GET or listen stream is an event stream whenever a client
		// attaches; what arrives before that is buffered (or, with no
		// resumption, has no one to go to).
		s.mode = modeSSE
	}
	return s
}

// ID returns the stream's id within its session.
func (s *Stream) ID() string { return s.opts.ID }

// Done is closed when the stream is complete or stopped.
func (s *Stream) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doneChan()
}

// closed is the Done of a stream that completed before anyone asked.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// doneChan returns done, making it on first use. Called with s.mu held.
func (s *Stream) doneChan() chan struct{} {
	if s.done == nil {
		if s.complete {
			return closed
		}
		s.done = make(chan struct{})
	}
	return s.done
}

// waitOn returns what a connection waits on: done and kick, made on first
// use, with a kick that came before kept in kick. Called with s.mu held.
func (s *Stream) waitOn() (done, kick <-chan struct{}) {
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
		if s.kicked {
			s.kick <- struct{}{}
		}
	}
	s.kicked = false
	return s.doneChan(), s.kick
}

// SetStatus sets the HTTP status of a plain JSON answer (a refusal decided
// before anything was streamed). Default 200. A batch's answer stays 200:
// the other elements ran, and each element's response carries its error.
func (s *Stream) SetStatus(code int) {
	if s.opts.Batch {
		return
	}
	s.mu.Lock()
	s.status = code
	s.mu.Unlock()
}

// SetHeader sets a header of a plain JSON answer.
func (s *Stream) SetHeader(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headers == nil {
		s.headers = http.Header{}
	}
	s.headers.Set(key, value)
}

func (s *Stream) eventID(seq uint64) string { return eventID(s.opts.ID, seq) }

// ParseEventID splits an event id "<stream>_<seq>".
func ParseEventID(id string) (stream string, seq uint64, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	return id[:i], seq, err == nil
}

// noticeWriteTimeout bounds the write of a notification fanned out to
// many streams. A healthy connection takes a small event at once; one
// whose client stopped reading is let go (the event stays buffered for
// its resume), so it cannot hold up the notifier and everyone after it.
const noticeWriteTimeout = 50 * time.Millisecond

// Notice appends a fanned-out notification (see noticeWriteTimeout).
func (s *Stream) Notice(data []byte) { s.deliver(data, false, noticeWriteTimeout) }

// Send appends a message and writes it to the attached connection. A
// response counts toward completing the stream; nil data is a request
// that ends without an answer (cancelled), which counts too.
func (s *Stream) Send(data []byte, response bool) { s.deliver(data, response, s.n.cfg.WriteTimeout) }

func (s *Stream) deliver(data []byte, response bool, timeout time.Duration) {
	if s.append(data, response, timeout) && s.opts.Orphaned != nil {
		s.opts.Orphaned(s)
	}
}

func (s *Stream) append(data []byte, response bool, timeout time.Duration) (orphaned bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timeout = timeout
	defer func() { s.timeout = s.n.cfg.WriteTimeout }()
	if s.complete {
		return false // the stream is over; a late message has nowhere to go
	}
	if data == nil {
		s.pending--
		if s.pending <= 0 && !s.opts.Standalone {
			if s.mode == modeSSE && s.ids {
				s.seq++
				s.persist(event{seq: s.seq}, true) // tells a tailing node the stream ended
			}
			return s.finish()
		}
		return false
	}
	s.seq++
	ev := event{seq: s.seq, data: data, response: response}
	if response {
		s.pending--
	}
	switch {
	case s.mode == modeSSE && !s.ids:
		// Without resumption a message is written or lost with its
		// connection; only a stream no connection attached to yet
		// keeps its first messages for it.
		switch {
		case s.w != nil:
			s.write(ev)
		case s.attach == 0:
			s.events = append(s.events, ev)
		}
	case s.mode == modeSSE:
		s.persist(ev, response && s.pending <= 0 && !s.opts.Standalone)
		if s.w != nil {
			s.write(ev)
		}
	default:
		s.events = append(s.events, ev)
		if !response && s.rw != nil {
			s.startStream()
		}
	}
	if response && s.pending <= 0 && !s.opts.Standalone {
		return s.finish()
	}
	return false
}

// finish marks the stream complete and reports whether it was orphaned.
// Called with s.mu held.
func (s *Stream) finish() bool {
	s.complete = true
	s.opts.Requests = nil
	if s.done != nil {
		close(s.done)
	}
	return s.orphan
}

// persist puts a message in the backplane's buffer for the stream, so the
// client can resume on any node; a node tailing the stream is woken.
// Called with s.mu held.
func (s *Stream) persist(ev event, last bool) {
	e := backplane.Event{Seq: ev.seq, Data: ev.data, Last: last}
	if s.unsaved != nil {
		s.unsaved.keep(e, s.n.cfg.BufferBytes) // after those that wait, in order
		s.saveUnsaved()
		return
	}
	if err := s.store(e); err != nil {
		s.n.cfg.Log.Warn().Err(err).Str("session", s.opts.Session).Msg("mcp stream buffer: a message waits to be kept for resumption until the backplane answers")
		s.unsaved = &unsaved{since: time.Now()}
		s.unsaved.keep(e, s.n.cfg.BufferBytes)
		s.retryUnsaved()
	}
}

// store appends e to the stream's buffer on the backplane and wakes the
// nodes that tail it. Called with s.mu held.
func (s *Stream) store(e backplane.Event) error {
	ctx, cancel := s.n.Context()
	defer cancel()
	cfg := &s.n.cfg
	if err := cfg.Backplane.Append(ctx, s.opts.Session, s.opts.ID, e, cfg.BufferBytes); err != nil {
		return err
	}
	s.buffered = true
	if s.w == nil && !cfg.Local && cfg.Publish != nil {
		cfg.Publish(&backplane.Message{Kind: backplane.KindWake, Session: s.opts.Session, Stream: s.opts.ID})
	}
	return nil
}

// head is what a POST answer's stream records in its marker, which no
// client is sent: the JSON array of the ids of the requests it answers.
func (s *Stream) head() []byte {
	var b []byte
	for _, m := range s.opts.Requests {
		if m.Kind() != jsonrpc.KindRequest {
			continue
		}
		if b == nil {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, m.ID...)
	}
	if b == nil {
		return nil
	}
	return append(b, ']')
}

// startStream turns an undecided answer into an event stream and writes
// what was kept so far. Called with s.mu held.
func (s *Stream) startStream() {
	s.mode = modeSSE
	s.w = sse.NewWriter(s.rw, http.StatusOK)
	s.rw = nil
	if s.ids {
		// A marker at seq 0 makes the stream known to every node from
		// the first event id the client may hold, and records what the
		// stream answers.
		s.persist(event{data: s.head()}, false)
	}
	s.opts.Requests = nil
	s.prime(0)
	complete := s.pending <= 0 && !s.opts.Standalone
	for i, ev := range s.events {
		if s.ids {
			s.persist(ev, complete && i == len(s.events)-1)
		}
		s.write(ev)
	}
	s.events = nil
}

// prime writes the priming event: an id with empty data lets the client
// resume from here even if the connection drops before the next message.
func (s *Stream) prime(after uint64) {
	if s.opts.Priming {
		s.writeRaw(sse.Event{ID: s.eventID(after), Retry: s.n.cfg.Retry})
	}
}

// flushKept writes what a stream without resumption kept before its first
// connection attached. Called with s.mu held.
func (s *Stream) flushKept() {
	if s.ids {
		return
	}
	for _, ev := range s.events {
		s.write(ev)
	}
	s.events = nil
}

// replay writes the buffered messages after seq from the backplane,
// telling the client where some of them are gone. It reports false when
// the backplane did not answer: the caller lets the connection go, so
// that the client resumes again from the same event rather than goes on
// with a hole. Called with s.mu held.
func (s *Stream) replay(after uint64) bool {
	if !s.ids {
		return true
	}
	if s.unsaved != nil {
		s.saveUnsaved() // what waits to be stored goes first, if it can now
	}
	lost := false
	if s.buffered {
		var ok bool
		if after, lost, _, ok = s.replayBuffer(s.opts.ID, after); !ok {
			return false
		}
	}
	if after < s.seq && !lost {
		// The last messages produced here never reached the buffer (the
		// backplane was down, or lost the session's data): the client
		// is told before the messages that come live.
		s.writeRaw(sse.Event{Data: s.n.lostNotice(missing)})
	}
	return true
}

// replayBuffer writes the events of stream id buffered after seq, with
// notices of those that are gone. last is the seq of the last event
// written (after, for none) and lost whether a notice of lost events
// followed it. found is false for a stream the backplane does not hold;
// ok is false when it did not answer. Called with s.mu held.
func (s *Stream) replayBuffer(id string, after uint64) (last uint64, lost, found, ok bool) {
	ctx, cancel := s.n.Context()
	defer cancel()
	evs, lost, err := s.n.cfg.Backplane.Events(ctx, s.opts.Session, id, after)
	if errors.Is(err, backplane.ErrNotFound) && id != s.opts.ID {
		return after, false, false, true
	}
	if err != nil {
		s.n.cfg.Log.Warn().Err(err).Str("session", s.opts.Session).Msg("mcp stream buffer unavailable for a resume")
		return after, false, false, false
	}
	if lost {
		s.writeRaw(sse.Event{Data: s.n.lostNotice(dropped)})
	}
	for _, ev := range evs {
		if ev.Seq != after+1 && !lost {
			s.writeRaw(sse.Event{Data: s.n.lostNotice(missing)})
		}
		lost, after = false, ev.Seq
		switch {
		case len(ev.Data) == 0:
		case id == s.opts.ID:
			s.write(event{seq: ev.Seq, data: ev.Data})
		default:
			s.writeRaw(sse.Event{ID: eventID(id, ev.Seq), Data: ev.Data})
		}
	}
	return after, lost, true, true
}

// replayMoved writes what a connection that moves over from a dead
// node's GET stream missed there: its buffered events after the client's
// last, with their ids, then a notice that what was sent while no node
// held the stream may be lost. It reports false when the backplane did
// not answer, as replay does. Called with s.mu held.
func (s *Stream) replayMoved(from *moved) bool {
	if from == nil {
		return true
	}
	_, _, found, ok := s.replayBuffer(from.id, from.after)
	if !ok {
		return false
	}
	s.writeRaw(sse.Event{Data: s.n.lostNotice(movedOver)})
	if found && s.w != nil {
		s.n.DropLater(s.opts.Session, from.id)
	}
	return true
}

func (s *Stream) write(ev event) {
	e := sse.Event{Data: ev.data}
	if s.ids {
		e.ID = s.eventID(ev.seq)
	}
	s.writeRaw(e)
	if s.w != nil {
		s.sent = ev.seq
	}
}

func (s *Stream) writeRaw(e sse.Event) {
	if s.w == nil {
		return
	}
	timeout := s.timeout
	if timeout <= 0 {
		timeout = s.n.cfg.WriteTimeout
	}
	_ = s.w.SetWriteDeadline(time.Now().Add(timeout))
	if err := s.w.Send(e); err != nil {
		// The client is gone or does not read; keep the events for a
		// resume and let the connection go.
		s.dropWriter()
		s.signal()
	}
}

// dropWriter lets go of the attached event-stream connection; a hijacked
// one is closed and its release runs. Called with s.mu held.
func (s *Stream) dropWriter() {
	w := s.w
	s.w = nil
	if w == nil || !w.Hijacked() {
		return
	}
	_ = w.Close()
	if rel := s.release; rel != nil {
		s.release = nil
		rel()
	}
}

// signal kicks the connection attached. Called with s.mu held.
func (s *Stream) signal() {
	if s.kick == nil {
		s.kicked = true
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Attached reports whether a connection is reading the stream.
func (s *Stream) Attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w != nil || s.rw != nil || s.reserved
}

// Reserve claims the stream for a connection about to attach, unless one
// is attached or claimed: two GETs racing for a session's stream cannot
// both win, even before the first one's response head is out.
func (s *Stream) Reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil || s.rw != nil || s.reserved {
		return false
	}
	s.reserved = true
	return true
}

// Delivered returns the seq of the last message written to a connection.
func (s *Stream) Delivered() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// CloseConn ends the current connection before the stream is complete, as
// SSE polling allows: the client reconnects after the retry delay.
func (s *Stream) CloseConn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mode == modeUndecided && s.rw != nil {
		s.startStream()
	}
	if s.w != nil && s.ids {
		s.writeRaw(sse.Event{Retry: s.n.cfg.Retry, ID: s.eventID(s.seq)})
	}
	s.dropWriter()
	s.signal()
}

func (s *Stream) armKeepAlive() {
	d := s.n.cfg.KeepAlive
	if d <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer == nil {
		s.timer = armKeepAlive(s, d)
	} else {
		s.timer.t.Reset(d)
	}
}

// keepAlive writes a comment on a quiet stream so that idle-connection
// timeouts between client and server do not cut it.
func (s *Stream) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.complete && !s.opts.Standalone {
		return
	}
	if s.mode == modeUndecided && s.rw != nil {
		s.startStream()
	}
	if s.w == nil {
		return
	}
	_ = s.w.SetWriteDeadline(time.Now().Add(s.n.cfg.WriteTimeout))
	if err := s.w.Comment("keep-alive"); err != nil {
		s.dropWriter()
		s.signal()
		return
	}
	if s.timer != nil {
		s.timer.t.Reset(s.n.cfg.KeepAlive)
	}
}

// Stop ends a stream that is no longer used: its timer stops, its
// connection is let go, and it takes no more messages.
func (s *Stream) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	s.end()
}

// end completes the stream and lets its connection go. Called with s.mu
// held.
func (s *Stream) end() {
	s.stopKeepAlive()
	if !s.complete {
		s.complete = true
		if s.done != nil {
			close(s.done)
		}
	}
	s.dropWriter()
	s.signal()
}

// Drop stops the stream and deletes its buffer after a grace period, for
// a stream delivered whole or that nobody can ask for: written to the
// socket is not read by the client, which may have hung up just then and
// resume.
func (s *Stream) Drop() {
	s.mu.Lock()
	s.end() // what waits to be stored still is: a client may resume it on another node
	persisted := s.buffered
	s.mu.Unlock()
	if persisted {
		s.n.DropLater(s.opts.Session, s.opts.ID)
	}
}
