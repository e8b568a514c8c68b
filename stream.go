package specter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/specter-mcp/specter/internal/probe"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Stream is the channel from a running request back to the client: the
// request's own SSE stream. Progress, logs and server-to-client requests
// sent through it reach the client before the final reply; if the client's
// connection drops, they are kept for it to resume.
//
// A Stream is a context.Context, the context of the work it belongs to:
// pass it to anything that takes one.
type Stream struct {
	ctx     context.Context
	ob      *stream.Stream
	sess    *session.Session
	timeout time.Duration // how long to wait for a client's answer in a session
	req     *Request
	task    *task.Task // set while the work runs as a task
}

// Deadline implements context.Context.
func (s *Stream) Deadline() (time.Time, bool) { return s.ctx.Deadline() }

// Done implements context.Context.
func (s *Stream) Done() <-chan struct{} { return s.ctx.Done() }

// Err implements context.Context.
func (s *Stream) Err() error { return s.ctx.Err() }

// Value implements context.Context: as Context.Value, the values of the
// HTTP request that carried the MCP request.
func (s *Stream) Value(key any) any { return s.ctx.Value(key) }

func (s *Stream) asker() *Stream { return s }

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
	return s.sendNotification(mcp.NotificationProgress, &p)
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
	return s.sendNotification(mcp.NotificationMessage, &mcp.LoggingMessageParams{Level: level, Data: data})
}

// Notify sends any notification on the request's stream.
func (s *Stream) Notify(method string, params any) error { return s.sendNotification(method, params) }

// CloseSSE ends the client's current connection without ending the
// request: the client reconnects (GET with Last-Event-ID) after the retry
// delay and receives what was sent meanwhile. Long-running work uses it
// to avoid holding connections open (SSE polling, MCP 2025-11-25).
func (s *Stream) CloseSSE() { s.ob.CloseConn() }

// Elicit asks the user, through the client, for input matching schema,
// and returns the answer validated by that schema, with its defaults, when
// the user accepted. An answer that does not match the schema is an error
// wrapping a *params.ValidationError (returned as the tool's error, the
// model reads what was wrong). The schema must describe a flat object of
// strings, numbers, integers, booleans and enums, as MCP elicitation
// requires. Elicit waits for the answer, for the server-to-client request
// deadline, or for the request to end. See Elicit (the function) for a
// struct instead of a schema, and ErrInputRequired for the 2026-07-28 wire.
//
// The answer is the client's word: it proves what the client sent, not
// that a person saw the question. Do not treat it as a confirmation an
// attacker could not forge.
func (s *Stream) Elicit(message string, schema *params.Schema, opts ...InputOption) (Params, ElicitAction, error) {
	if err := checkForm(schema); err != nil {
		return nil, "", err
	}
	var vals Params
	action, err := s.elicitForm(message, schema, opts, func(c json.RawMessage) (err error) { vals, err = schema.Validate(c); return err })
	if err != nil {
		return nil, action, err
	}
	return vals, action, nil
}

// elicitForm asks a form-mode elicitation of schema; bind takes the
// content of an accepted answer, or says how it breaks the schema.
func (s *Stream) elicitForm(message string, schema *params.Schema, opts []InputOption, bind func(json.RawMessage) error) (ElicitAction, error) {
	if !s.req.ClientCapabilities.Elicitation.SupportsForm() {
		return "", &CapabilityError{Capability: "elicitation", Method: mcp.MethodElicit}
	}
	var res formAnswer
	err := s.call(mcp.MethodElicit, &mcp.ElicitParams{Mode: formMode(s.req.Version), Message: message, RequestedSchema: schema.JSON()}, &res, res.Valid, opts)
	if err == nil && ElicitAction(res.Action) == ElicitAccept {
		if err = bind(res.Content); err != nil {
			err = fmt.Errorf("the answer to the question does not match what was asked: %w", err)
		}
	}
	return ElicitAction(res.Action), err
}

// ElicitURL asks the user to complete an interaction at url, out of band
// (URL mode, MCP 2025-11-25), and returns how the user answered.
func (s *Stream) ElicitURL(message, url, elicitationID string, opts ...InputOption) (ElicitAction, error) {
	if !s.req.ClientCapabilities.Elicitation.SupportsURL() {
		return "", &CapabilityError{Capability: "elicitation.url", Method: mcp.MethodElicit}
	}
	if s.req.stateless != nil {
		// 2026-07-28 dropped elicitationId: the retry itself says the
		// interaction finished.
		elicitationID = ""
	}
	var res formAnswer
	err := s.call(mcp.MethodElicit, &mcp.ElicitParams{Mode: "url", Message: message, URL: url, ElicitationID: elicitationID}, &res, res.Valid, opts)
	return ElicitAction(res.Action), err
}

// Sample asks the client's LLM for a message. With p.Tools (SEP-1577) the
// model may answer with tool calls instead (res.StopReason
// mcp.StopReasonToolUse, res.Content.ToolUses()); run them and ask again
// with the assistant's message and a user message of mcp.ToolResult
// blocks appended. Tools need a client that declared sampling.tools;
// otherwise Sample fails with a *CapabilityError before asking.
func (s *Stream) Sample(p *mcp.CreateMessageParams, opts ...InputOption) (*mcp.CreateMessageResult, error) {
	if s.req.ClientCapabilities.Sampling == nil {
		return nil, &CapabilityError{Capability: "sampling", Method: mcp.MethodSample}
	}
	if (len(p.Tools) > 0 || p.ToolChoice != nil) && s.req.ClientCapabilities.Sampling.Tools == nil {
		return nil, &CapabilityError{Capability: "sampling.tools", Method: mcp.MethodSample}
	}
	var res mcp.CreateMessageResult
	err := s.call(mcp.MethodSample, p, &res, func() bool {
		return (res.Role == mcp.RoleAssistant || res.Role == mcp.RoleUser) && len(res.Content) > 0
	}, opts)
	return &res, err
}

// ListRoots asks the client for its roots.
func (s *Stream) ListRoots(opts ...InputOption) ([]mcp.Root, error) {
	if s.req.ClientCapabilities.Roots == nil {
		return nil, &CapabilityError{Capability: "roots", Method: mcp.MethodListRoots}
	}
	var res mcp.ListRootsResult
	err := s.call(mcp.MethodListRoots, struct{}{}, &res, func() bool { return res.Roots != nil }, opts)
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
func (s *Stream) call(method string, params, result any, valid func() bool, opts []InputOption) error {
	if m := s.req.stateless; m != nil {
		key := m.Key(method, inputKey(opts))
		if s.task != nil {
			return s.task.Ask(s.ctx, key, method, params, result, valid)
		}
		return m.Input(key, method, params, result, valid)
	}
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("specter: encode %s: %w", method, err)
	}
	if s.task != nil { // a task's question says which task asks, and the task waits meanwhile
		p = task.Relate(p, s.task.ID)
		defer s.task.Waiting()()
	}
	ctx, end := probe.Outbound(s.ctx, method)
	m, err := s.sess.Ask(ctx, s.ob, method, p, s.timeout)
	switch {
	case err != nil:
	case m.Error != nil:
		err = &ClientError{Method: method, Err: m.Error}
	case json.Unmarshal(m.Result, result) != nil || !valid():
		err = fmt.Errorf("specter: the client answered %s with a result of the wrong shape", method)
	}
	end(probe.Err(err))
	return err
}
