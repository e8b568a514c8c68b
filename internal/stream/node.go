package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/sse"
)

// Config is what the streams of one node share.
type Config struct {
	Backplane    backplane.Backplane // holds stream buffers for resumption
	Local        bool                // the backplane lives in this process: calls cannot hang, no wake-ups to publish
	BufferBytes  int                 // cap of one stream's buffer
	WriteTimeout time.Duration       // bound of one write to a client
	KeepAlive    time.Duration       // comment interval on a quiet stream; 0 disables
	Retry        time.Duration       // reconnection delay sent in SSE retry fields
	Log          zerolog.Logger
	// Publish sends a message to every node; it wakes a node that tails a
	// stream produced here. Nil publishes nothing.
	Publish func(*backplane.Message)
	// Alive reports whether a node holds its lease on the backplane
	// (backplane.Leases); nil: nodes are not watched.
	Alive func(ctx context.Context, node string) (bool, error)
}

// Node holds the streams of one node: their Config, and the wake-ups of
// the streams it tails for clients that resumed here a stream another
// node produces.
type Node struct {
	cfg   Config
	wakes wakeups
}

// NewNode returns a Node configured by cfg.
func NewNode(cfg Config) *Node { return &Node{cfg: cfg} }

// CallTimeout bounds one backplane call on the request path, so a
// backplane that is down fails requests quickly instead of hanging them.
const CallTimeout = 3 * time.Second

// Context returns the context of one backplane call: bounded by
// CallTimeout unless the backplane is in-process.
func (n *Node) Context() (context.Context, context.CancelFunc) {
	if n.cfg.Local {
		return context.Background(), func() {} // in-process calls cannot hang
	}
	return context.WithTimeout(context.Background(), CallTimeout)
}

// Wake wakes the tails of a stream on this node: its producer appended.
func (n *Node) Wake(session, stream string) { n.wakes.signal(session + "/" + stream) }

// grace is how long a delivered stream's buffer is kept for a client that
// may not have read its end: several reconnection delays.
const grace = 30 * time.Second

// DropLater deletes a stream's buffer after the grace period (at least 30
// seconds, or ten reconnection delays).
func (n *Node) DropLater(session, stream string) {
	time.AfterFunc(max(grace, 10*n.cfg.Retry), func() {
		ctx, cancel := n.Context()
		defer cancel()
		_ = n.cfg.Backplane.DropStream(ctx, session, stream)
	})
}

// Source is a stream that another node produces, as a node that serves
// a client resuming it knows it.
type Source struct {
	Session, ID string
	// Node is the id of the node that produces it, "" if unknown. Once
	// that node is gone (its lease ended), a POST answer without its last
	// event is ended with an error, and a GET stream lets its client go,
	// to reconnect where the stream moves over (Stream.ServeMoved).
	Node       string
	Standalone bool // a session's GET stream, which never ends by itself
	// answers is what a POST answer's stream records in its head: the
	// ids of the requests it answers (see Find).
	answers []json.RawMessage
}

// Find reports whether the backplane buffers src's stream, and reads
// what its head records. An error means the backplane did not answer,
// which says nothing of the stream: the client should retry, not be told
// it names no stream.
func (n *Node) Find(ctx context.Context, src *Source) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	head, err := n.cfg.Backplane.Head(ctx, src.Session, src.ID)
	switch {
	case errors.Is(err, backplane.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("stream %s of session %s: %w", src.ID, src.Session, err)
	}
	src.answers = nil
	if head.Seq == 0 && len(head.Data) > 0 {
		_ = json.Unmarshal(head.Data, &src.answers)
	}
	return true, nil
}

// Gone reports whether node, which produces streams that this node
// tails, is gone: its lease ended. A node whose lease the backplane does
// not answer for is taken to live.
func (n *Node) Gone(ctx context.Context, node string) bool {
	if node == "" || n.cfg.Alive == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	alive, err := n.cfg.Alive(ctx, node)
	return err == nil && !alive
}

// tailPoll is how often a remote tail looks for new events even without a
// wake-up, in case a message between nodes was lost.
const tailPoll = time.Second

// Tail serves a resumed stream that another node produces: the buffered
// events after `after`, then new ones as that node appends them, until
// the stream's last event, the client leaving or done closing (the
// session ended). A backplane error ends it; the client retries. While it
// waits it watches the producer (see Source.Node).
func (n *Node) Tail(w http.ResponseWriter, req *http.Request, src Source, after uint64, done <-chan struct{}) {
	session, stream := src.Session, src.ID
	key := session + "/" + stream
	wake := n.wakes.add(key)
	defer n.wakes.remove(key, wake)
	sw := sse.NewWriter(w, http.StatusOK)
	ticker := time.NewTicker(tailPoll)
	defer ticker.Stop()
	keepAlive := time.NewTicker(max(n.cfg.KeepAlive, time.Second))
	defer keepAlive.Stop()
	gone := 0 // polls in a row that found the producer gone
	for {
		ctx, cancel := context.WithTimeout(req.Context(), CallTimeout)
		evs, lost, err := n.cfg.Backplane.Events(ctx, session, stream, after)
		cancel()
		if err != nil {
			return
		}
		if lost {
			// On the first read, for what was dropped before the client
			// came back; later, for what was dropped while it followed.
			_ = sw.Send(sse.Event{Data: n.lostNotice(dropped)})
		}
		for _, ev := range evs {
			if ev.Seq != after+1 && !lost {
				_ = sw.Send(sse.Event{Data: n.lostNotice(missing)})
			}
			lost = false
			if len(ev.Data) > 0 {
				_ = sw.SetWriteDeadline(time.Now().Add(n.cfg.WriteTimeout))
				if err := sw.Send(sse.Event{ID: eventID(stream, ev.Seq), Data: ev.Data}); err != nil {
					return
				}
			}
			after = ev.Seq
			if ev.Last {
				n.DropLater(session, stream)
				return
			}
		}
		select {
		case <-wake:
		case <-ticker.C:
			if len(evs) > 0 || !n.Gone(req.Context(), src.Node) {
				gone = 0
				break
			}
			if gone++; gone < goneTicks {
				break
			}
			if src.Standalone {
				return // the client reconnects, and the stream moves over
			}
			n.EndOrphan(req.Context(), src, after)
		case <-keepAlive.C:
			if sw.Comment("keep-alive") != nil {
				return
			}
		case <-req.Context().Done():
			return
		case <-done:
			return
		}
	}
}

// goneTicks is how many polls in a row must find a stream's producer
// gone before a tail acts on it: a live node renews its lease every
// second, so one whose lease the backplane lost (a Redis restarted
// without persistence, a failover that lost the last writes) has it back
// by then.
const goneTicks = 3

// orphanHold is how long the node that ends an orphaned stream holds it:
// if that node dies too, another one ends it after this.
const orphanHold = 30 * time.Second

// EndOrphan ends a POST answer's stream whose producer is gone and whose
// requests its lease had not recorded yet (it died within a moment of
// starting them), so that nobody took them over: one of the nodes that
// tail it appends the error, which every resume of it then sees.
func (n *Node) EndOrphan(ctx context.Context, src Source, after uint64) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	got, err := n.cfg.Backplane.Claim(ctx, "orphan:"+src.Session+"/"+src.ID, orphanHold)
	if err != nil || !got {
		return // another node ends it; the tail sees its end
	}
	ids := src.answers
	if len(ids) == 0 {
		ids = []json.RawMessage{json.RawMessage("null")} // its head is gone: JSON-RPC's unknown id
	}
	reason := fmt.Sprintf("the server node that ran it (%s) stopped: its lease on the backplane ended", src.Node)
	if err := n.End(ctx, src.Session, src.ID, ids, reason, after); err != nil {
		n.cfg.Log.Warn().Err(err).Str("session", src.Session).Str("stream", src.ID).Msg("specter: ending the stream of a node that stopped")
	}
}

// Down is the reason, in an error's data, of a request whose node died.
const Down = "down"

// End ends the stream of a dead node's requests: an error response for
// each request id it has not answered, the last completing it, unless it
// completed already; the nodes that tail it are woken.
func (n *Node) End(ctx context.Context, session, stream string, ids []json.RawMessage, reason string, after uint64) error {
	evs, _, err := n.cfg.Backplane.Events(ctx, session, stream, 0)
	if err != nil && !errors.Is(err, backplane.ErrNotFound) {
		return err
	}
	var seq uint64
	if k := len(evs); k > 0 {
		if evs[k-1].Last {
			return nil // it completed before the node died
		}
		seq = evs[k-1].Seq
	}
	// A client may hold events the backplane never took (it was down):
	// the end goes after them, so that its resume gets it.
	seq = max(seq, after)
	ids = unanswered(ids, evs)
	if len(ids) == 0 {
		// Every request was answered, but the end was not recorded.
		ev := backplane.Event{Seq: seq + 1, Last: true}
		if err := n.cfg.Backplane.Append(ctx, session, stream, ev, n.cfg.BufferBytes); err != nil {
			return err
		}
	}
	for i, id := range ids {
		je := jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s before it answered; the request may or may not have taken effect", reason).
			WithData(map[string]string{"reason": Down})
		ev := backplane.Event{Seq: seq + uint64(i) + 1, Data: jsonrpc.AppendError(nil, jsonrpc.ID(id), je), Last: i == len(ids)-1}
		if err := n.cfg.Backplane.Append(ctx, session, stream, ev, n.cfg.BufferBytes); err != nil {
			return err
		}
	}
	if n.cfg.Publish != nil {
		n.cfg.Publish(&backplane.Message{Kind: backplane.KindWake, Session: session, Stream: stream})
	}
	return nil
}

// unanswered returns the ids that no response among evs answers: of a
// batch, some may have been answered before the node died.
func unanswered(ids []json.RawMessage, evs []backplane.Event) []json.RawMessage {
	if len(ids) < 2 {
		return ids
	}
	answered := map[string]bool{}
	for _, ev := range evs {
		var m jsonrpc.Message
		if json.Unmarshal(ev.Data, &m) == nil && (m.Kind() == jsonrpc.KindResponse || m.Kind() == jsonrpc.KindErrorResponse) {
			answered[m.ID.Key()] = true
		}
	}
	out := ids[:0:0]
	for _, id := range ids {
		if !answered[jsonrpc.ID(id).Key()] {
			out = append(out, id)
		}
	}
	return out
}

// lostNotice tells a resuming client that messages of its stream are
// gone, and why, rather than leaving a silent gap.
func (n *Node) lostNotice(why loss) []byte {
	text := "messages of this stream were lost: the session storage did not take them; the answer may be incomplete"
	switch why {
	case movedOver:
		text = "messages of this stream may have been lost: the server node that held it stopped, and it goes on from this node; what was sent while no node held it did not reach you"
	case dropped:
		text = fmt.Sprintf("messages of this stream were dropped: they exceeded the session's buffer of %d bytes; the answer may be incomplete", n.cfg.BufferBytes)
	}
	p, _ := json.Marshal(&mcp.LoggingMessageParams{Level: mcp.LevelError, Logger: "specter", Data: text})
	return jsonrpc.AppendRequest(nil, nil, mcp.NotificationMessage, p)
}

// loss is why messages of a stream are missing.
type loss uint8

const (
	// dropped to keep the buffer within its limit
	dropped loss = iota
	// missing from the sequence of a stream (whose events are numbered
	// without holes): the backplane did not take them while their
	// producer went on
	missing
	// sent to a GET stream after its node died, before the client moved
	// over to another node's
	movedOver
)

func eventID(stream string, seq uint64) string { return stream + "_" + strconv.FormatUint(seq, 10) }

// wakeups wakes the tails waiting on a stream key.
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
