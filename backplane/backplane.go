// Package backplane holds what the nodes of one Specter deployment share:
// sessions and their data, the event buffers that let a client resume a
// stream on any node, claims on in-flight request ids, and messages
// between nodes (notifications, answers to server requests, cancellations,
// stream wake-ups).
//
// Memory is the zero-configuration implementation for one process;
// package backplane/redisbp implements it on Redis for many nodes. The
// router keeps live things (connections, waiting handlers) on the node
// that has them and asks the backplane for everything else, so the same
// code runs on one node or many.
package backplane

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrNotFound is returned for a session that does not exist (never did,
// was deleted, or expired).
var ErrNotFound = errors.New("backplane: not found")

// ErrTooMany is returned by SetMember for a set at its limit.
var ErrTooMany = errors.New("backplane: the set is at its limit")

// Backplane is the state and messaging shared by the nodes of a server.
// Implementations are safe for concurrent use. Errors other than
// ErrNotFound mean the backplane is unreachable or failed.
type Backplane interface {
	// CreateSession stores a new session that expires after ttl without
	// Touch (0: never).
	CreateSession(ctx context.Context, s *Session, ttl time.Duration) error
	// LoadSession returns a session, or ErrNotFound.
	LoadSession(ctx context.Context, id string) (*Session, error)
	// TouchSession extends a session's life by ttl from now.
	TouchSession(ctx context.Context, id string, ttl time.Duration) error
	// SetField sets one field of a session: FieldLogLevel or a data key
	// (DataField(key)).
	SetField(ctx context.Context, id, field string, value json.RawMessage) error
	// SetMember adds member to a set of a session, FieldSubscriptions or
	// FieldTopics, or, with on false, removes it. It writes that one
	// member, however many the set holds; adding a member that is there
	// changes nothing. With limit > 0, an add that would make the set
	// hold more than limit members changes nothing and is ErrTooMany.
	SetMember(ctx context.Context, id, field, member string, on bool, limit int) error
	// DeleteSession removes a session with its event buffers. It reports
	// whether the session existed, so exactly one caller ends it.
	DeleteSession(ctx context.Context, id string) (bool, error)

	// Append adds an event to a session's stream buffer, dropping the
	// oldest events once the buffer holds more than limit bytes.
	Append(ctx context.Context, session, stream string, ev Event, limit int) error
	// Events returns the buffered events of a stream with Seq > after, in
	// order. lost reports that events after `after` were dropped to stay
	// within the limit, so the client cannot get them all. A stream that
	// was never appended to (or was dropped) is ErrNotFound, so an empty
	// result means the stream exists with nothing new yet.
	Events(ctx context.Context, session, stream string, after uint64) (evs []Event, lost bool, err error)
	// Head returns the oldest event still buffered of a stream: a POST
	// answer's stream opens with an event of Seq 0 that Events never
	// returns, whose Data records what the stream answers, so that a node
	// that finds the stream's producer dead can end it. A stream that was
	// never appended to (or was dropped) is ErrNotFound.
	Head(ctx context.Context, session, stream string) (Event, error)
	// DropStream deletes a stream's buffer once it was delivered whole.
	DropStream(ctx context.Context, session, stream string) error

	// Claim takes key for ttl if nobody holds it, across nodes. Release
	// gives it back.
	Claim(ctx context.Context, key string, ttl time.Duration) (bool, error)
	Release(ctx context.Context, key string) error

	// PutTask stores a task's record until t.Expires, unless the record
	// stored under its id is final: a task that ended stays as it ended,
	// whichever node writes last. It reports whether it stored t.
	PutTask(ctx context.Context, t *Task) (bool, error)
	// LoadTask returns a task's record, or ErrNotFound once it expired.
	LoadTask(ctx context.Context, id string) (*Task, error)
	// ListTasks returns the live tasks of owner that are not Unlisted, in
	// the order they expire.
	ListTasks(ctx context.Context, owner string) ([]*Task, error)

	// Admit readies a session for its owner's requests in one step, so
	// that a request costs one round trip to a remote backplane. It gives
	// back the request keys in release, then, if the session exists,
	// extends its life by ttl (as TouchSession), claims each request key
	// of claims (reporting, in order, which it got: a key is held by one
	// request at a time, across nodes) and returns the session as it is
	// now. A session that does not exist is ErrNotFound, and nothing is
	// claimed. Request keys belong to the session and go with it.
	Admit(ctx context.Context, id string, ttl time.Duration, claims, release []string) (*Session, []bool, error)
	// ClaimRequests is Admit for a caller that holds a copy of the session
	// already, at some Revision: it gives back the request keys in
	// release, then, if the session exists, claims each request key of
	// claims (reporting, in order, which it got) and returns the session's
	// revision, by which the caller knows whether its copy is current. It
	// neither extends the session's life nor reads the session back, so
	// that it costs a remote backplane little. A session that does not
	// exist is ErrNotFound, and nothing is claimed. A node calls Admit
	// when a session's life is due to be extended, about once a second,
	// and ClaimRequests for the session's requests in between.
	ClaimRequests(ctx context.Context, id string, claims, release []string) (revision uint64, got []bool, err error)

	// Publish sends a message to every node, this one included.
	Publish(ctx context.Context, m *Message) error
	// Subscribe calls handle for every published message until stop is
	// called. A node subscribes once.
	Subscribe(handle func(*Message)) (stop func(), err error)

	// Sharing says who else sees this backplane's state: InProcess or
	// Shared. The router relies on it: over an InProcess backplane every
	// session is this node's, so it skips messages between nodes and
	// ends the sessions when it shuts down; over a Shared one other nodes
	// go on serving them.
	Sharing() Sharing

	// Close releases the backplane's resources.
	Close() error
}

// Sharing is who sees a backplane's state.
type Sharing uint8

const (
	// InProcess: the state lives in this process and ends with it
	// (Memory, and wrappers of it).
	InProcess Sharing = iota
	// Shared: other processes share the state and outlive this one
	// (redisbp).
	Shared
)

// String returns "in-process" or "shared".
func (s Sharing) String() string {
	if s == Shared {
		return "shared"
	}
	return "in-process"
}

// Session is a session-era MCP session as the nodes share it.
type Session struct {
	ID            string                     `json:"id"`
	Version       string                     `json:"version"`
	Principal     string                     `json:"principal,omitempty"`
	Client        json.RawMessage            `json:"client,omitempty"`
	Capabilities  json.RawMessage            `json:"capabilities,omitempty"`
	LogLevel      int                        `json:"logLevel"`
	Subscriptions []string                   `json:"subscriptions,omitempty"`
	Topics        []string                   `json:"topics,omitempty"` // application topics (router Publish)
	Data          map[string]json.RawMessage `json:"data,omitempty"`
	Created       time.Time                  `json:"created"`
	// Revision grows with every change of the fields (SetField, and a
	// SetMember that changes a set): a copy of the session is current
	// while the revision is the same. CreateSession stores revision 0.
	Revision uint64 `json:"revision,omitempty"`
}

// Fields of a session: FieldLogLevel and data keys are set with
// SetField, the sets with SetMember.
const (
	FieldLogLevel      = "logLevel"      // a JSON number
	FieldSubscriptions = "subscriptions" // the set of resource URIs subscribed to
	FieldTopics        = "topics"        // the set of application topics followed
	dataPrefix         = "data:"
)

// DataField is the field name of application data key.
func DataField(key string) string { return dataPrefix + key }

// Event is one message of a stream.
type Event struct {
	Seq  uint64 `json:"s"`
	Data []byte `json:"d"`
	// Last marks the event that completes the stream (its final response).
	Last bool `json:"l,omitempty"`
}

// Task is a task (MCP tasks) as the nodes share it: who may see it, when
// it goes, and the router's state of it in Data.
type Task struct {
	ID    string `json:"id"`
	Owner string `json:"owner"`
	Final bool   `json:"final,omitempty"` // it ended: nothing replaces it
	// Unlisted: nobody lists the owner's tasks (the 2026-07-28 wire has
	// no tasks/list), so the backplane keeps no index of them: many
	// anonymous callers share an owner, and their index would be one hot
	// key.
	Unlisted bool            `json:"unlisted,omitempty"`
	Expires  time.Time       `json:"expires"`
	Data     json.RawMessage `json:"data"`
}

// Message kinds.
const (
	KindNotify = "notify" // a change notification for listening clients
	KindAnswer = "answer" // a client's answer to a server request
	KindCancel = "cancel" // notifications/cancelled for an in-flight request
	KindWake   = "wake"   // a stream has new events
	KindEnd    = "end"    // a session ended
	KindTask   = "task"   // for the node running task Stream: Method tasks/cancel, or tasks/update with Data
	KindTopic  = "topic"  // an application event on topic URI, with Data
	KindField  = "field"  // a session's shared field Method changed to Data (as SetField)
	KindMember = "member" // a session's set Method gained (Data true) or lost (false) member URI (as SetMember)
	// KindGap says that messages between nodes may have been lost: a
	// node's subscription broke and came back, or a node could not
	// publish. A node that gets it tells its listening clients to read
	// again what they follow. A backplane that can lose messages sends
	// it (or hands it to Subscribe's handler) once it works again.
	KindGap = "gap"
)

// Message travels between nodes.
type Message struct {
	Kind      string          `json:"k"`
	Session   string          `json:"s,omitempty"`
	Stream    string          `json:"t,omitempty"`
	ID        json.RawMessage `json:"i,omitempty"`
	Method    string          `json:"m,omitempty"`
	URI       string          `json:"u,omitempty"`
	Principal string          `json:"p,omitempty"`
	Targeted  bool            `json:"x,omitempty"`
	Data      json.RawMessage `json:"d,omitempty"`
}
