package session

// A Cluster keeps one node's sessions in step with the backplane that
// every node of a deployment shares: it finds the session a request
// names, keeps it alive for its owner, and ends it for every node, telling
// the application once.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// ClusterConfig configures a node's view of the shared sessions.
type ClusterConfig struct {
	Backplane backplane.Backplane
	Local     bool // the backplane lives in this process: only this node changes it
	Sessions  *Table
	Streams   *stream.Node // bounds backplane calls
	Log       zerolog.Logger
	// Ended runs once per session that ended, with the reason; nil: nothing.
	Ended func(s *Session, reason string)
	// Unsubscribed runs, before Ended, for each resource subscription the
	// session still held; nil: nothing. A panic in it is logged.
	Unsubscribed func(s *Session, uri string)
}

// Cluster finds and ends sessions for one node.
type Cluster struct{ cfg ClusterConfig }

// NewCluster returns the node's view of the shared sessions.
func NewCluster(cfg ClusterConfig) *Cluster { return &Cluster{cfg: cfg} }

// Lookup finds a session for a request: this node's copy, or one built
// from the backplane's record. It does not touch the session: only its
// owner's requests do, and Admit checks that the session still exists
// and that this node's copy is current as it claims their ids (another
// node may have changed or ended the session). An id this server never
// issues, or one the backplane does not hold, is backplane.ErrNotFound.
func (c *Cluster) Lookup(ctx context.Context, id string) (*Session, error) {
	if !ValidID(id) {
		// Ids this server never issues are unknown without asking the
		// backplane, where they would become key names.
		return nil, backplane.ErrNotFound
	}
	if s := c.cfg.Sessions.Get(id); s != nil {
		return s, nil
	}
	ctx, cancel := context.WithTimeout(ctx, stream.CallTimeout)
	defer cancel()
	rec, err := c.cfg.Backplane.LoadSession(ctx, id)
	if err != nil {
		return nil, err
	}
	s := c.cfg.Sessions.Add(rec)
	s.WatchIdle()
	return s, nil
}

// Admit readies a session for its owner's POST, GET or DELETE (see
// Session.Admit): one backplane call. A record that is gone ends
// the session: on an in-process backplane with reason expired, on a shared
// one with the reason it was lost for, told by one node.
func (c *Cluster) Admit(ctx context.Context, s *Session, msgs []*jsonrpc.Message, expired string) error {
	if !c.cfg.Local {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stream.CallTimeout)
		defer cancel()
	}
	err := s.Admit(ctx, msgs)
	if errors.Is(err, backplane.ErrNotFound) {
		if !c.cfg.Local {
			expired = s.LostReason() // unless another node ended it and said so
		}
		c.Finish(s, expired)
	}
	return err
}

// End ends a session for every node: its record goes, every node drops
// its live state, and Ended runs here once. On a shared backplane this
// node's copy is read back first, so that the hooks see the subscriptions
// and data that other nodes added while no request here checked the
// copy's revision.
func (c *Cluster) End(s *Session, reason string) error {
	ctx, cancel := c.cfg.Streams.Context()
	defer cancel()
	if !c.cfg.Local {
		_ = s.reload(ctx) // what it has otherwise
	}
	existed, err := c.cfg.Backplane.DeleteSession(ctx, s.ID())
	if err != nil {
		return err
	}
	if existed && !c.cfg.Local {
		// Nodes that find the record gone before this message arrives
		// do not tell the application a second time (Finish).
		_, _ = c.cfg.Backplane.Claim(ctx, "end:"+s.ID(), time.Hour)
	}
	_ = c.cfg.Backplane.Publish(ctx, &backplane.Message{Kind: backplane.KindEnd, Session: s.ID()})
	s.Stop()
	if existed {
		c.ended(s, reason)
	}
	return nil
}

// Shutdown lets go of this node's sessions as it shuts down: on an
// in-process backplane they die with the process and end with reason;
// on a shared one other nodes go on serving them.
func (c *Cluster) Shutdown(reason string) {
	for _, s := range c.cfg.Sessions.All() {
		if c.cfg.Local {
			_ = c.End(s, reason)
		} else {
			s.letGo()
		}
	}
}

// Finish ends a session whose record already expired. Ended runs once: on
// the one node of an in-process backplane, or on the node that claims the
// end of a shared one.
func (c *Cluster) Finish(s *Session, reason string) {
	if !s.letGo() {
		return
	}
	if !c.cfg.Local {
		ctx, cancel := c.cfg.Streams.Context()
		defer cancel()
		if ok, err := c.cfg.Backplane.Claim(ctx, "end:"+s.ID(), time.Hour); err != nil || !ok {
			return
		}
	}
	c.ended(s, reason)
}

func (c *Cluster) ended(s *Session, reason string) {
	c.cfg.Log.Debug().Str("session", s.ID()).Str("reason", reason).Msg("mcp session ended")
	for _, uri := range s.Subscriptions() {
		if c.cfg.Unsubscribed == nil {
			break
		}
		if err := guard.Run(func() { c.cfg.Unsubscribed(s, uri) }); err != nil {
			c.cfg.Log.Error().Err(err).Str("session", s.ID()).Str("uri", uri).Msg("mcp unsubscribe hook failed")
		}
	}
	if c.cfg.Ended != nil {
		c.cfg.Ended(s, reason)
	}
}

// Subscribed reports whether s is subscribed to uri and has a GET stream
// here to deliver on. A client may have subscribed through another node:
// that node published the change (backplane.KindMember), and a request
// through this one reads the record back when its revision changed
// (Admit), so the copy here is current without a read per notification.
func (c *Cluster) Subscribed(s *Session, uri string) bool {
	return s.HasGetStream() && s.Subscribed(uri)
}

// Followers returns the sessions that take an application event of
// topic on this node: those subscribed to it, on a shared backplane only
// where their GET stream is open, so that each runs the event once, where
// its client listens.
func (c *Cluster) Followers(topic string) []*Session {
	var out []*Session
	for _, s := range c.cfg.Sessions.All() {
		if !c.cfg.Local && !s.HasGetStream() {
			continue
		}
		if s.Follows(topic) {
			out = append(out, s)
		}
	}
	return out
}

// Publish sends an application event, data (anything that encodes to
// JSON) on topic, to every node (see Followers).
func (c *Cluster) Publish(topic string, data any) error {
	raw, err := json.Marshal(data)
	if err == nil {
		ctx, cancel := c.cfg.Streams.Context()
		defer cancel()
		err = c.cfg.Backplane.Publish(ctx, &backplane.Message{Kind: backplane.KindTopic, URI: topic, Data: raw})
	}
	if err != nil {
		return fmt.Errorf("specter: publish on %q: %w", topic, err)
	}
	return nil
}

// Reaches reports whether notification m is for principal's streams: a
// targeted one reaches only its principal's.
func Reaches(m *backplane.Message, principal string) bool {
	return !m.Targeted || m.Principal == principal
}

// Notify hands notification m to the GET streams of the sessions on this
// node that it reaches: a list_changed to all of them, a resources/updated
// to those subscribed to its URI whose access (the session's
// Session.Access) allowed says may read it.
func (c *Cluster) Notify(m *backplane.Message, allowed func(access any) bool) {
	if m.Method != mcp.NotificationResourceUpdated {
		msg := jsonrpc.AppendRequest(nil, nil, m.Method, nil)
		stream.FanOut(c.cfg.Sessions.All(), func(s *Session) {
			if Reaches(m, s.Principal()) {
				s.Notify(msg)
			}
		})
		return
	}
	p, _ := json.Marshal(&mcp.ResourceUpdatedParams{URI: m.URI})
	msg := jsonrpc.AppendRequest(nil, nil, mcp.NotificationResourceUpdated, p)
	stream.FanOut(c.cfg.Sessions.All(), func(s *Session) {
		if Reaches(m, s.Principal()) && c.Subscribed(s, m.URI) && allowed(s.Access()) {
			s.Notify(msg)
		}
	})
}

// Refusal is the refusal of a request whose session Lookup or Touch
// could not find: unknown, or the backplane failed.
func Refusal(err error) *refusal.Error {
	if errors.Is(err, backplane.ErrNotFound) {
		return refusal.SessionNotFound
	}
	return refusal.StorageUnavailable
}

// Subscribe has the node receive what every node publishes, and returns
// what stops it. A backplane that cannot subscribe is logged: notifications
// and answers then do not cross nodes until the node restarts, while
// requests still work.
func Subscribe(bp backplane.Backplane, receive func(*backplane.Message), log zerolog.Logger) (stop func()) {
	stop, err := bp.Subscribe(receive)
	if err != nil {
		log.Error().Err(err).Msg("mcp backplane: subscribe failed")
		return func() {}
	}
	return stop
}
