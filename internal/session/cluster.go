package session

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Answer routes a client's answer to a server request: to the request
// waiting here, or, on a shared backplane, to the node where it waits.
func (s *Session) Answer(m *jsonrpc.Message) {
	cfg := &s.t.cfg
	switch {
	case s.Deliver(m):
	case cfg.Local:
		cfg.Log.Debug().Str("session", s.id).Str("id", m.ID.String()).Msg("ignored a response to no pending server request")
	default:
		raw, _ := json.Marshal(m)
		cfg.Publish(&backplane.Message{Kind: backplane.KindAnswer, Session: s.id, Data: raw})
	}
}

// Receive handles a message another node (or this one) published for a
// session or its streams: an answer to a server request, a cancellation,
// a stream's wake-up, the session's end. Notifications are not its job.
func (t *Table) Receive(m *backplane.Message) {
	if m.Kind == backplane.KindWake {
		t.cfg.Streams.Wake(m.Session, m.Stream)
		return
	}
	s := t.Get(m.Session)
	if s == nil {
		return
	}
	switch m.Kind {
	case backplane.KindAnswer:
		var msg jsonrpc.Message
		if json.Unmarshal(m.Data, &msg) == nil {
			s.Deliver(&msg)
		}
	case backplane.KindCancel:
		s.Cancel(jsonrpc.ID(m.ID))
	case backplane.KindEnd:
		s.Stop()
	case backplane.KindField:
		s.applyField(m.Method, m.Data)
	case backplane.KindMember:
		i := subscriptions
		if m.Method == backplane.FieldTopics {
			i = topics
		}
		s.applyMember(i, m.URI, string(m.Data) == "true")
	}
}

// Notification acts on a client notification: notifications/cancelled
// cancels the request here or, on a shared backplane, on the node that
// runs it. Others are ignored, as the spec asks.
func (s *Session) Notification(m *jsonrpc.Message) {
	if m.Method != mcp.NotificationCancelled {
		return
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) == nil && !p.RequestID.IsZero() && !s.Cancel(p.RequestID) && !s.t.cfg.Local {
		s.t.cfg.Publish(&backplane.Message{Kind: backplane.KindCancel, Session: s.id, ID: json.RawMessage(p.RequestID)})
	}
}

// Errors of Serve, before anything is written; backplane.ErrNotFound
// too, for a session whose record is gone.
var (
	ErrNoStream = errors.New("session: Last-Event-ID names no stream of this session")
	ErrConflict = errors.New("session: a GET stream is already open")
	// ErrUnavailable: the backplane did not say whether the stream
	// exists; the client may retry.
	ErrUnavailable = errors.New("session: the backplane is unreachable")
)

// noStream is the error of a resume whose stream the backplane does not
// buffer: ErrNoStream, unless the session's record is gone too, as when
// Redis came back without its data. Then the session has ended (the
// client must initialize again, not fix its request): it ends here too,
// and the error is backplane.ErrNotFound.
func (s *Session) noStream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, stream.CallTimeout)
	defer cancel()
	_, err := s.t.cfg.Backplane.LoadSession(ctx, s.id)
	switch {
	case errors.Is(err, backplane.ErrNotFound):
		s.expired()
		return backplane.ErrNotFound
	case err != nil:
		s.t.cfg.Log.Warn().Err(err).Msg("mcp session: resume: the backplane did not answer")
		return ErrUnavailable
	}
	return ErrNoStream
}

// unstored answers a resume of a stream the backplane does not hold: 404
// for a session that went (with Redis's data), 503 when the backplane
// does not answer, and 400 for an id that names no stream. A POST answer
// of another node may not be stored yet, though: a node keeps the events
// the backplane did not take while it was down and stores them once it
// answers. So while that node lives the client is asked to retry (503);
// once it died, the stream is ended, after the client's last event, with
// the error its requests get, and nil tells the caller to serve that end.
func (s *Session) unstored(ctx context.Context, src stream.Source, after uint64) error {
	err := s.noStream(ctx)
	if !errors.Is(err, ErrNoStream) || src.Node == "" || src.Node == s.t.cfg.Node || src.Standalone {
		return err
	}
	if !s.t.cfg.Streams.Gone(ctx, src.Node) {
		return ErrUnavailable
	}
	s.t.cfg.Streams.EndOrphan(ctx, src, after)
	return nil
}

// Serve serves a GET: the stream lastEventID names (a POST answer or the
// GET stream), resumed after it, from here or, when another node produces
// it, by tailing its buffer; without lastEventID, the standalone GET
// stream, unless a connection has it already. release runs once when the
// connection ends (which may be after Serve returns, for a connection
// the stream took over), or before Serve returns an error.
func (s *Session) Serve(w http.ResponseWriter, req *http.Request, lastEventID string, release func()) error {
	var o *stream.Stream
	after := uint64(0)
	if lastEventID != "" {
		id, seq, valid := stream.ParseEventID(lastEventID)
		if valid {
			o = s.Stream(id)
		}
		if o == nil && valid {
			return s.serveRemote(w, req, s.source(id), seq, release)
		}
		if o == nil {
			release()
			return ErrNoStream
		}
		after = seq
	} else {
		o = s.GetStream()
		if !o.Reserve() {
			release()
			return ErrConflict
		}
		after = o.Delivered()
	}
	s.Enter()
	if o.Serve(w, req, after, func() { s.Leave(); release() }) {
		s.DropStream(o)
	}
	return nil
}

// serveRemote serves a GET that resumes src, a stream that another node
// produces, after seq: by tailing its buffer, or, for the GET stream of
// a node that is gone, by moving its delivery over to this node's GET
// stream.
func (s *Session) serveRemote(w http.ResponseWriter, req *http.Request, src stream.Source, seq uint64, release func()) error {
	streams := s.t.cfg.Streams
	buffered, err := streams.Find(req.Context(), &src)
	if err != nil {
		s.t.cfg.Log.Warn().Err(err).Msg("mcp session: resume: the backplane did not answer")
		release()
		return ErrUnavailable
	}
	if src.Standalone && streams.Gone(req.Context(), src.Node) {
		o := s.GetStream()
		if !o.Reserve() {
			release()
			return ErrConflict
		}
		s.Enter()
		o.ServeMoved(w, req, o.Delivered(), src.ID, seq, func() { s.Leave(); release() })
		return nil
	}
	if !buffered {
		if err := s.unstored(req.Context(), src, seq); err != nil {
			release()
			return err
		}
	}
	s.Enter()
	defer release()
	defer s.Leave()
	streams.Tail(w, req, src, seq, s.ctx.Done())
	return nil
}
