package specter

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/sse"
)

type outMode uint8

const (
	modeUndecided outMode = iota // nothing sent yet: the answer may still be plain JSON
	modeSSE
	modeJSON
)

// event is one message of a stream, kept for replay.
type event struct {
	seq      uint64
	data     []byte
	response bool
}

// outbox is one response stream: the answer to a POST, the session's
// standalone GET stream, or a subscriptions/listen stream. Messages are
// appended by whoever produces them (the handler, Async work,
// notifications) and written at once to the connection attached to the
// stream, if any. In a session, once the answer is an event stream, every
// message also goes to the backplane's buffer for the stream, where it
// stays until the stream is complete and delivered, so that a client
// whose connection dropped resumes with GET and Last-Event-ID, on this
// node or another, and loses nothing.
//
// A POST answer starts undecided: if the response is the first message it
// is written as application/json; the first notification or request, or a
// keep-alive tick, turns the answer into an event stream.
type outbox struct {
	r          *Router
	sess       *session // nil on the 2026-07-28 wire
	id         string
	ids        bool // events carry ids and are kept for resumption (session era)
	priming    bool // the client expects a priming event (2025-11-25+)
	standalone bool
	status     int         // HTTP status of a plain JSON answer; 0 means 200
	headers    http.Header // headers of a plain JSON answer

	mu        sync.Mutex
	events    []event // messages of an undecided answer, not yet persisted
	seq       uint64
	persisted bool          // the backplane holds a buffer for this stream
	reserved  bool          // a connection is about to attach (reserve)
	timeout   time.Duration // write timeout of the message being appended
	mode      outMode
	rw        http.ResponseWriter // attached connection, before it is an event stream
	w         *sse.Writer         // attached connection, as an event stream
	attach    uint64              // increments on every attach, so an old connection knows it was replaced
	release   func()              // runs once when a hijacked connection ends
	pending   int                 // requests still to be answered
	sent      uint64              // last seq written to a connection
	orphan    bool                // the POST connection left before the answer was decided
	complete  bool
	done      chan struct{} // closed when complete
	kick      chan struct{} // asks the attached connection to let go (CloseSSE, replaced, failed)
	timer     *time.Timer   // keep-alive
}

func newOutbox(r *Router, s *session, id string, standalone bool) *outbox {
	o := &outbox{
		r: r, sess: s, id: id, standalone: standalone,
		ids: s != nil, priming: s != nil && mcp.SupportsPriming(s.version),
		done: make(chan struct{}), kick: make(chan struct{}, 1),
	}
	if standalone {
		// A GET or listen stream is an event stream whenever a client
		// attaches; what arrives before that is buffered (or, with no
		// resumption, has no one to go to).
		o.mode = modeSSE
	}
	return o
}

// header sets a header for a plain JSON answer (a refusal decided before
// anything was streamed).
func (o *outbox) header(key, value string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.headers == nil {
		o.headers = http.Header{}
	}
	o.headers.Set(key, value)
}

func (o *outbox) eventID(seq uint64) string { return o.id + "_" + strconv.FormatUint(seq, 10) }

// parseEventID splits "<stream>_<seq>".
func parseEventID(id string) (stream string, seq uint64, ok bool) {
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

// notice appends a fanned-out notification (see noticeWriteTimeout).
func (o *outbox) notice(data []byte) { o.deliver(data, false, noticeWriteTimeout) }

// send appends a message and writes it to the attached connection.
func (o *outbox) send(data []byte, response bool) { o.deliver(data, response, o.r.cfg.writeTimeout) }

func (o *outbox) deliver(data []byte, response bool, timeout time.Duration) {
	if o.append(data, response, timeout) && o.sess != nil {
		// Nobody can ask for this answer any more: its client left before
		// the stream had event ids to resume from.
		o.sess.dropStream(o)
	}
}

func (o *outbox) append(data []byte, response bool, timeout time.Duration) (drop bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.timeout = timeout
	defer func() { o.timeout = o.r.cfg.writeTimeout }()
	if o.complete {
		return false // the stream is over; a late message has nowhere to go
	}
	if data == nil {
		// A request that ends without an answer (cancelled) still
		// counts toward completing the stream.
		o.pending--
		if o.pending <= 0 && !o.standalone {
			if o.mode == modeSSE && o.ids {
				o.seq++
				o.persist(event{seq: o.seq}, true) // tells a tailing node the stream ended
			}
			o.complete = true
			close(o.done)
			return o.orphan
		}
		return false
	}
	o.seq++
	ev := event{seq: o.seq, data: data, response: response}
	if response {
		o.pending--
	}
	switch {
	case o.mode == modeSSE && !o.ids:
		// Without resumption a message is written or lost with its
		// connection; only a stream no connection attached to yet
		// keeps its first messages for it.
		switch {
		case o.w != nil:
			o.write(ev)
		case o.attach == 0:
			o.events = append(o.events, ev)
		}
	case o.mode == modeSSE:
		last := response && o.pending <= 0 && !o.standalone
		o.persist(ev, last)
		if o.w != nil {
			o.write(ev)
		}
	default:
		o.events = append(o.events, ev)
		if !response && o.rw != nil {
			o.startStream()
		}
	}
	if response && o.pending <= 0 && !o.standalone {
		o.complete = true
		close(o.done)
		return o.orphan
	}
	return false
}

// persist puts a message in the backplane's buffer for the stream, so the
// client can resume on any node; a node tailing the stream is woken.
// Called with o.mu held.
func (o *outbox) persist(ev event, last bool) {
	ctx, cancel := o.r.bpContext()
	defer cancel()
	err := o.r.bp.Append(ctx, o.sess.id, o.id, backplane.Event{Seq: ev.seq, Data: ev.data, Last: last}, o.r.cfg.bufferBytes)
	if err != nil {
		o.r.log.Warn().Err(err).Str("session", o.sess.id).Msg("mcp stream buffer: a message could not be kept for resumption")
		return
	}
	o.persisted = true
	if o.w == nil && !o.r.local {
		o.r.publish(&backplane.Message{Kind: backplane.KindWake, Session: o.sess.id, Stream: o.id})
	}
}

// startStream turns an undecided answer into an event stream and writes
// what was kept so far. Called with o.mu held.
func (o *outbox) startStream() {
	o.mode = modeSSE
	o.w = sse.NewWriter(o.rw, http.StatusOK)
	o.rw = nil
	if o.ids {
		// A marker at seq 0 makes the stream known to every node from
		// the first event id the client may hold.
		o.persist(event{}, false)
	}
	o.prime(0)
	complete := o.pending <= 0 && !o.standalone
	for i, ev := range o.events {
		if o.ids {
			o.persist(ev, complete && i == len(o.events)-1)
		}
		o.write(ev)
	}
	o.events = nil
}

// prime writes the priming event: an id with empty data lets the client
// resume from here even if the connection drops before the next message.
func (o *outbox) prime(after uint64) {
	if o.priming {
		o.writeRaw(sse.Event{ID: o.eventID(after), Retry: o.r.cfg.retry})
	}
}

// flushKept writes what a stream without resumption kept before its first
// connection attached. Called with o.mu held.
func (o *outbox) flushKept() {
	if o.ids {
		return
	}
	for _, ev := range o.events {
		o.write(ev)
	}
	o.events = nil
}

// replay writes the buffered messages after seq from the backplane,
// telling the client first if some of them were dropped.
func (o *outbox) replay(after uint64) {
	if !o.ids || !o.persisted {
		return
	}
	ctx, cancel := o.r.bpContext()
	defer cancel()
	evs, lost, err := o.r.bp.Events(ctx, o.sess.id, o.id, after)
	if err != nil {
		o.r.log.Warn().Err(err).Str("session", o.sess.id).Msg("mcp stream buffer unavailable for a resume")
		return
	}
	if lost {
		o.writeRaw(sse.Event{Data: lostNotice(o.sess)})
	}
	for _, ev := range evs {
		if len(ev.Data) > 0 {
			o.write(event{seq: ev.Seq, data: ev.Data})
		}
	}
}

func (o *outbox) write(ev event) {
	e := sse.Event{Data: ev.data}
	if o.ids {
		e.ID = o.eventID(ev.seq)
	}
	o.writeRaw(e)
	if o.w != nil {
		o.sent = ev.seq
	}
}

func (o *outbox) writeRaw(e sse.Event) {
	if o.w == nil {
		return
	}
	timeout := o.timeout
	if timeout <= 0 {
		timeout = o.r.cfg.writeTimeout
	}
	_ = o.w.SetWriteDeadline(time.Now().Add(timeout))
	if err := o.w.Send(e); err != nil {
		// The client is gone or does not read; keep the events for a
		// resume and let the connection go.
		o.dropWriter()
		o.signal()
	}
}

// dropWriter lets go of the attached event-stream connection; a hijacked
// one is closed and its release runs. Called with o.mu held.
func (o *outbox) dropWriter() {
	w := o.w
	o.w = nil
	if w == nil || !w.Hijacked() {
		return
	}
	_ = w.Close()
	if rel := o.release; rel != nil {
		o.release = nil
		rel()
	}
}

// attachHijacked attaches a connection the stream owns (sse.Hijack),
// replaying events after seq; release runs when that connection ends.
// Nothing waits for it: the stream lives on its connection alone.
func (o *outbox) attachHijacked(w *sse.Writer, after uint64, release func()) {
	o.mu.Lock()
	if o.w != nil || o.rw != nil {
		o.dropWriter()
		o.rw = nil
		o.signal()
	}
	if o.complete {
		o.mu.Unlock()
		_ = w.Close()
		release()
		return
	}
	o.mode = modeSSE
	o.attach++
	o.w, o.release, o.reserved = w, release, false
	o.prime(after)
	o.replay(after)
	o.flushKept()
	o.mu.Unlock()
	w.OnGone(func() {
		o.mu.Lock()
		if o.w == w {
			o.dropWriter()
		}
		o.mu.Unlock()
	})
	o.armKeepAlive()
}

func (o *outbox) signal() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// attachPOST attaches the connection that sent the POST; the answer is
// undecided until the first message.
func (o *outbox) attachPOST(w http.ResponseWriter) (gen uint64) {
	o.mu.Lock()
	o.rw = w
	o.attach++
	gen = o.attach
	o.mu.Unlock()
	o.armKeepAlive()
	return gen
}

// attached reports whether a connection is reading the stream.
func (o *outbox) attached() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w != nil || o.rw != nil || o.reserved
}

// reserve claims the stream for a connection about to attach, unless one
// is attached or claimed: two GETs racing for a session's stream cannot
// both win, even before the first one's response head is out.
func (o *outbox) reserve() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.w != nil || o.rw != nil || o.reserved {
		return false
	}
	o.reserved = true
	return true
}

// delivered returns the seq of the last message written to a connection.
func (o *outbox) delivered() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sent
}

// attachStream attaches a GET connection as an event stream, replaying
// events after seq. It replaces a connection already attached.
func (o *outbox) attachStream(w http.ResponseWriter, after uint64) (gen uint64) {
	o.mu.Lock()
	if o.w != nil || o.rw != nil {
		o.dropWriter()
		o.rw = nil
		o.signal()
	}
	// Drain a stale kick so this connection is not dropped at once.
	select {
	case <-o.kick:
	default:
	}
	o.mode = modeSSE
	o.attach++
	gen = o.attach
	o.w, o.reserved = sse.NewWriter(w, http.StatusOK), false
	o.prime(after)
	o.replay(after)
	o.flushKept()
	o.mu.Unlock()
	o.armKeepAlive()
	return gen
}

// detach lets go of connection generation gen, if it is still attached,
// and reports whether the stream is complete and was delivered whole on
// that connection, so that nothing needs keeping for a resume.
func (o *outbox) detach(gen uint64) (delivered bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.attach != gen {
		return false
	}
	delivered = o.complete && o.w != nil
	if o.mode == modeUndecided {
		o.orphan = true
	}
	o.dropWriter()
	o.rw = nil
	if o.timer != nil {
		o.timer.Stop()
	}
	return delivered
}

// takeJSON returns the kept responses for a plain JSON answer when the
// answer is complete and nothing was streamed, and marks it as JSON.
func (o *outbox) takeJSON(gen uint64) ([]event, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mode != modeUndecided || !o.complete || o.attach != gen || o.rw == nil {
		return nil, false
	}
	o.mode = modeJSON
	o.rw = nil
	if o.timer != nil {
		o.timer.Stop()
	}
	evs := o.events
	o.events = nil
	return evs, true
}

// closeConn ends the current connection before the stream is complete, as
// SSE polling allows: the client reconnects after the retry delay.
func (o *outbox) closeConn() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mode == modeUndecided && o.rw != nil {
		o.startStream()
	}
	if o.w != nil && o.ids {
		o.writeRaw(sse.Event{Retry: o.r.cfg.retry, ID: o.eventID(o.seq)})
	}
	o.dropWriter()
	o.signal()
}

func (o *outbox) armKeepAlive() {
	d := o.r.cfg.keepAlive
	if d <= 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer == nil {
		o.timer = time.AfterFunc(d, o.keepAlive)
	} else {
		o.timer.Reset(d)
	}
}

// keepAlive writes a comment on a quiet stream so that idle-connection
// timeouts between client and server do not cut it.
func (o *outbox) keepAlive() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.complete && !o.standalone {
		return
	}
	if o.mode == modeUndecided && o.rw != nil {
		o.startStream()
	}
	if o.w == nil {
		return
	}
	_ = o.w.SetWriteDeadline(time.Now().Add(o.r.cfg.writeTimeout))
	if err := o.w.Comment("keep-alive"); err != nil {
		o.dropWriter()
		o.signal()
		return
	}
	o.timer.Reset(o.r.cfg.keepAlive)
}

// stop releases the timer of a stream that is no longer used.
func (o *outbox) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer != nil {
		o.timer.Stop()
	}
	if !o.complete {
		o.complete = true
		close(o.done)
	}
	o.dropWriter()
	o.signal()
}
