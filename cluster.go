package specter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/sse"
)

// Backplane sets what the nodes of a deployment share: sessions, stream
// buffers, in-flight ids and messages between nodes. Default: an
// in-memory backplane for one process. With a shared one (redisbp.New),
// several processes behind a load balancer are one server to every
// client: a session created on one node works on another, a dropped
// client resumes anywhere, notifications and answers to server requests
// reach the node that needs them. Give every node the same StateKey too.
func Backplane(bp backplane.Backplane) RouterOption {
	return routerOption(func(r *Router) { r.bp = bp })
}

// OnSessionStart runs when initialize creates a session, after connect,
// before the client gets its session id: it may find or create the
// application's data for the session (keyed by s.ID() or c.Principal())
// with s.Set. An error refuses the initialize with an internal error.
func OnSessionStart(f func(c *Context, s *Session) error) RouterOption {
	return routerOption(func(r *Router) { r.onStart = f })
}

// OnTerminate runs once when a session ends, on the node that ends it,
// with the reason (EndClient, EndTimeout, EndShutdown, EndError) and the
// session's data as it was.
func OnTerminate(f func(reason string, s *Session)) RouterOption {
	return routerOption(func(r *Router) { r.onTerminate = f })
}

// bpTimeout bounds one backplane call on the request path, so a backplane
// that is down fails requests quickly instead of hanging them.
const bpTimeout = 3 * time.Second

func (r *Router) bpContext() (context.Context, context.CancelFunc) {
	if r.local {
		return context.Background(), func() {} // in-process calls cannot hang
	}
	return context.WithTimeout(context.Background(), bpTimeout)
}

// errUnavailable answers requests while the backplane cannot be reached.
func errUnavailable() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Service Unavailable: session storage is unreachable; retry shortly")
}

// lookup finds a session for a request: this node's copy, refreshed from
// the backplane (another node may have changed or ended it).
func (r *Router) lookup(ctx context.Context, id string) (*session, error) {
	if !validSessionID(id) {
		// Ids this server never issues are unknown without asking the
		// backplane, where they would become key names.
		return nil, backplane.ErrNotFound
	}
	if !r.local {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bpTimeout)
		defer cancel()
	}
	if s := r.sessions.get(id); s != nil && r.local {
		// A single-process backplane changes only through this node.
		if err := r.bp.TouchSession(ctx, id, r.cfg.sessionTimeout); err != nil {
			if errors.Is(err, backplane.ErrNotFound) {
				r.finish(s, EndTimeout)
			}
			return nil, err
		}
		s.touch()
		return s, nil
	}
	rec, err := r.bp.LoadSession(ctx, id)
	if err != nil {
		if s := r.sessions.get(id); s != nil && errors.Is(err, backplane.ErrNotFound) {
			s.stopLocal()
		}
		return nil, err
	}
	if err := r.bp.TouchSession(ctx, id, r.cfg.sessionTimeout); err != nil {
		return nil, err
	}
	s := r.sessions.get(id)
	if s == nil {
		s = r.sessions.put(r.newLocal(rec))
		if s.timer == nil {
			s.watchIdle()
		}
	}
	s.refresh(rec)
	s.touch()
	return s, nil
}

// validSessionID reports whether id could be one randomID issued: 22
// characters of the URL-safe base64 alphabet.
func validSessionID(id string) bool {
	if len(id) != 22 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// writeLookupError answers a request whose session could not be found.
func writeLookupError(w http.ResponseWriter, id jsonrpc.ID, err error) {
	if errors.Is(err, backplane.ErrNotFound) {
		jsonrpc.WriteError(w, http.StatusNotFound, id, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Not Found: unknown or ended session; initialize a new one"))
		return
	}
	jsonrpc.WriteError(w, http.StatusServiceUnavailable, id, errUnavailable())
}

// endSession ends a session for every node: its record goes, every node
// drops its live state, and OnTerminate runs here once.
func (r *Router) endSession(s *session, reason string) error {
	ctx, cancel := r.bpContext()
	defer cancel()
	existed, err := r.bp.DeleteSession(ctx, s.id)
	if err != nil {
		return err
	}
	_ = r.bp.Publish(ctx, &backplane.Message{Kind: backplane.KindEnd, Session: s.id})
	s.stopLocal()
	if existed {
		r.terminated(s, reason)
	}
	return nil
}

// finish ends a session whose record already expired. OnTerminate runs
// once: on the one node of an in-process backplane, or on the node that
// claims the end of a shared one.
func (r *Router) finish(s *session, reason string) {
	if !s.stopLocal() {
		return
	}
	if !r.local {
		ctx, cancel := r.bpContext()
		defer cancel()
		if ok, err := r.bp.Claim(ctx, "end:"+s.id, time.Hour); err != nil || !ok {
			return
		}
	}
	r.terminated(s, reason)
}

func (r *Router) terminated(s *session, reason string) {
	r.log.Debug().Str("session", s.id).Str("reason", reason).Msg("mcp session ended")
	if r.onTerminate != nil {
		r.onTerminate(reason, &Session{s: s})
	}
}

// onMessage handles what other nodes (and this one) publish.
func (r *Router) onMessage(m *backplane.Message) {
	switch m.Kind {
	case backplane.KindNotify:
		r.deliverNotify(m)
	case backplane.KindAnswer:
		if s := r.sessions.get(m.Session); s != nil {
			var msg jsonrpc.Message
			if json.Unmarshal(m.Data, &msg) == nil {
				s.deliver(&msg)
			}
		}
	case backplane.KindCancel:
		if s := r.sessions.get(m.Session); s != nil {
			s.cancelRequest(jsonrpc.ID(m.ID))
		}
	case backplane.KindWake:
		r.wakes.signal(m.Session + "/" + m.Stream)
	case backplane.KindEnd:
		if s := r.sessions.get(m.Session); s != nil {
			s.stopLocal()
		}
	}
}

// publish sends a message to every node, logging a backplane failure.
func (r *Router) publish(m *backplane.Message) {
	ctx, cancel := r.bpContext()
	defer cancel()
	if err := r.bp.Publish(ctx, m); err != nil {
		r.log.Warn().Err(err).Str("kind", m.Kind).Msg("mcp backplane publish failed")
	}
}

// wakeups wakes the streams this node tails for clients that resumed here
// a stream another node produces.
type wakeups struct {
	mu sync.Mutex
	m  map[string]map[chan struct{}]struct{}
}

func (w *wakeups) add(key string) chan struct{} {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]map[chan struct{}]struct{}{}
	}
	if w.m[key] == nil {
		w.m[key] = map[chan struct{}]struct{}{}
	}
	w.m[key][ch] = struct{}{}
	w.mu.Unlock()
	return ch
}

func (w *wakeups) remove(key string, ch chan struct{}) {
	w.mu.Lock()
	delete(w.m[key], ch)
	if len(w.m[key]) == 0 {
		delete(w.m, key)
	}
	w.mu.Unlock()
}

func (w *wakeups) signal(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.m[key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// streamGrace is how long a delivered stream's buffer is kept for a client
// that may not have read its end: several reconnection delays.
const streamGrace = 30 * time.Second

// dropBufferLater deletes a stream's buffer after the grace period.
func (r *Router) dropBufferLater(session, stream string) {
	grace := max(streamGrace, 10*r.cfg.retry)
	time.AfterFunc(grace, func() {
		ctx, cancel := r.bpContext()
		defer cancel()
		_ = r.bp.DropStream(ctx, session, stream)
	})
}

// tailPoll is how often a remote tail looks for new events even without a
// wake-up, in case a message between nodes was lost.
const tailPoll = time.Second

// tail serves a resumed stream that another node produces: the buffered
// events after `after`, then new ones as that node appends them, until
// the stream's last event, the client leaving or the session ending.
func (r *Router) tail(w http.ResponseWriter, req *http.Request, s *session, stream string, after uint64) {
	key := s.id + "/" + stream
	wake := r.wakes.add(key)
	defer r.wakes.remove(key, wake)
	sw := sse.NewWriter(w, http.StatusOK)
	first := true
	ticker := time.NewTicker(tailPoll)
	defer ticker.Stop()
	keepAlive := time.NewTicker(max(r.cfg.keepAlive, time.Second))
	defer keepAlive.Stop()
	for {
		ctx, cancel := context.WithTimeout(req.Context(), bpTimeout)
		evs, lost, err := r.bp.Events(ctx, s.id, stream, after)
		cancel()
		if err != nil {
			return // the stream or the backplane is gone; the client retries
		}
		if lost && first {
			_ = sw.Send(sse.Event{Data: lostNotice(s)})
		}
		first = false
		for _, ev := range evs {
			if len(ev.Data) > 0 {
				_ = sw.SetWriteDeadline(time.Now().Add(r.cfg.writeTimeout))
				if err := sw.Send(sse.Event{ID: stream + "_" + fmt.Sprint(ev.Seq), Data: ev.Data}); err != nil {
					return
				}
			}
			after = ev.Seq
			if ev.Last {
				r.dropBufferLater(s.id, stream)
				return
			}
		}
		select {
		case <-wake:
		case <-ticker.C:
		case <-keepAlive.C:
			if sw.Comment("keep-alive") != nil {
				return
			}
		case <-req.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// lostNotice tells a resuming client that its stream's buffer overflowed
// and the oldest messages are gone, rather than leaving a silent gap.
func lostNotice(s *session) []byte {
	p, _ := json.Marshal(&mcp.LoggingMessageParams{Level: mcp.LevelError, Logger: "specter",
		Data: fmt.Sprintf("messages of this stream were dropped: they exceeded the session's buffer of %d bytes; the answer may be incomplete", s.r.cfg.bufferBytes)})
	return jsonrpc.AppendRequest(nil, nil, "notifications/message", p)
}
