package specter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Stream is the channel from a running request back to the client: the
// request's own SSE stream. Progress, logs and server-to-client requests
// sent through it reach the client before the final reply; if the client's
// connection drops, they are kept for it to resume.
type Stream struct {
	ob   *stream.Stream
	sess *session.Session
	req  *Request
	task *task // set while the work runs as a task
}

func (s *Stream) sendNotification(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("specter: encode %s: %w", method, err)
	}
	s.ob.Send(jsonrpc.AppendRequest(nil, nil, method, p), false)
	return nil
}

// Progress reports progress on the request. It does nothing when the
// client sent no progress token. total <= 0 means unknown.
func (s *Stream) Progress(progress, total float64, message string) error {
	if s.req.ProgressToken == nil {
		return nil
	}
	p := mcp.ProgressParams{ProgressToken: s.req.ProgressToken, Progress: progress, Message: message}
	if total > 0 {
		p.Total = &total
	}
	return s.sendNotification(handlers.NotificationProgress, &p)
}

// Log sends a log message to the client if level is at or above the level
// the client set with logging/setLevel.
func (s *Stream) Log(level mcp.LoggingLevel, data any) error {
	if level.Severity() < 0 {
		return fmt.Errorf("specter: unknown logging level %q", level)
	}
	min, on := s.req.logLevel(s.sess)
	if !on || level.Severity() < min.Severity() {
		return nil
	}
	return s.sendNotification(handlers.NotificationMessage, &mcp.LoggingMessageParams{Level: level, Data: data})
}

// Notify sends any notification on the request's stream.
func (s *Stream) Notify(method string, params any) error { return s.sendNotification(method, params) }

// CloseSSE ends the client's current connection without ending the
// request: the client reconnects (GET with Last-Event-ID) after the retry
// delay and receives what was sent meanwhile. Long-running work uses it
// to avoid holding connections open (SSE polling, MCP 2025-11-25).
func (s *Stream) CloseSSE() { s.ob.CloseConn() }

// Elicit asks the user, through the client, for input matching schema (a
// flat JSON Schema object: a json.RawMessage, or any value that encodes to
// one). It waits for the answer or for ctx to end.
func (s *Stream) Elicit(ctx context.Context, message string, schema any, opts ...InputOption) (*mcp.ElicitResult, error) {
	if !s.req.ClientCapabilities.Elicitation.SupportsForm() {
		return nil, &CapabilityError{Capability: "elicitation", Method: handlers.MethodElicit}
	}
	raw, err := marshalJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("specter: encode elicitation schema: %w", err)
	}
	var res mcp.ElicitResult
	err = s.call(ctx, handlers.MethodElicit, &mcp.ElicitParams{Mode: s.formMode(), Message: message, RequestedSchema: raw}, &res, validElicit(&res), opts)
	return &res, err
}

// formMode names the mode on revisions that know modes.
func (s *Stream) formMode() string {
	if s.req.Version >= mcp.Version20251125 {
		return "form"
	}
	return ""
}

func validElicit(r *mcp.ElicitResult) func() bool {
	return func() bool { return r.Action == "accept" || r.Action == "decline" || r.Action == "cancel" }
}

// ElicitURL asks the user to complete an interaction at url, out of band
// (URL mode, MCP 2025-11-25).
func (s *Stream) ElicitURL(ctx context.Context, message, url, elicitationID string, opts ...InputOption) (*mcp.ElicitResult, error) {
	if !s.req.ClientCapabilities.Elicitation.SupportsURL() {
		return nil, &CapabilityError{Capability: "elicitation.url", Method: handlers.MethodElicit}
	}
	if s.req.modern != nil {
		// 2026-07-28 dropped elicitationId: the retry itself says the
		// interaction finished.
		elicitationID = ""
	}
	var res mcp.ElicitResult
	err := s.call(ctx, handlers.MethodElicit, &mcp.ElicitParams{Mode: "url", Message: message, URL: url, ElicitationID: elicitationID}, &res, validElicit(&res), opts)
	return &res, err
}

// Sample asks the client's LLM for a message.
func (s *Stream) Sample(ctx context.Context, p *mcp.CreateMessageParams, opts ...InputOption) (*mcp.CreateMessageResult, error) {
	if s.req.ClientCapabilities.Sampling == nil {
		return nil, &CapabilityError{Capability: "sampling", Method: handlers.MethodSample}
	}
	var res mcp.CreateMessageResult
	err := s.call(ctx, handlers.MethodSample, p, &res, func() bool {
		return (res.Role == mcp.RoleAssistant || res.Role == mcp.RoleUser) && len(res.Content) > 0
	}, opts)
	return &res, err
}

// ListRoots asks the client for its roots.
func (s *Stream) ListRoots(ctx context.Context, opts ...InputOption) ([]mcp.Root, error) {
	if s.req.ClientCapabilities.Roots == nil {
		return nil, &CapabilityError{Capability: "roots", Method: handlers.MethodListRoots}
	}
	var res mcp.ListRootsResult
	err := s.call(ctx, handlers.MethodListRoots, struct{}{}, &res, func() bool { return res.Roots != nil }, opts)
	return res.Roots, err
}

// ClientError is the error a client answered a server-to-client request with.
type ClientError struct {
	Method string
	Err    *jsonrpc.Error
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("specter: client answered %s with error %d: %s", e.Method, e.Err.Code, e.Err.Message)
}

// call asks the client. In a session it sends a request on this stream
// and waits for the answer, which arrives as a POST routed by the session.
// On the 2026-07-28 wire it takes the answer from the retried request, or
// records the question and returns ErrInputRequired.
func (s *Stream) call(ctx context.Context, method string, params, result any, valid func() bool, opts []InputOption) error {
	if m := s.req.modern; m != nil {
		key := m.nextKey(method, opts)
		if s.task != nil {
			return s.task.ask(ctx, key, method, params, result, valid)
		}
		return m.input(key, method, params, result, valid)
	}
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("specter: encode %s: %w", method, err)
	}
	id, ch := s.sess.Await()
	s.ob.Send(jsonrpc.AppendRequest(nil, id, method, p), false)
	select {
	case m := <-ch:
		if m.Error != nil {
			return &ClientError{Method: method, Err: m.Error}
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("specter: decode %s result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		s.sess.Forget(id)
		// Tell the client it need not answer any more.
		_ = s.sendNotification(handlers.NotificationCancelled, &mcp.CancelledParams{RequestID: json.RawMessage(id), Reason: "the server no longer waits for this answer"})
		return fmt.Errorf("specter: %s: %w", method, ctx.Err())
	}
}
