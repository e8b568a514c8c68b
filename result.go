package specter

import (
	"errors"

	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/mcp"
)

type resultKind uint8

const (
	resultReply resultKind = iota
	resultNoReply
	resultError
)

// Result is what a handler answers: Reply, NoReply or Error.
type Result struct {
	kind  resultKind
	value any
	err   error
	work  func(*Stream) Result // NoReply's
}

// Reply answers now with v. For a tool, a string becomes text content;
// content values (mcp.Text, mcp.Image, …, or a []mcp.Content) pass
// through; an error becomes Error(v); any other value becomes
// structuredContent (when it encodes to a JSON object) plus its JSON as
// text. For a prompt, a string becomes one user message, and
// mcp.PromptMessage values pass through. For a resource, a string is its
// text, a []byte its binary contents, and other values are JSON.
func Reply(v any) Result {
	if err, ok := v.(error); ok {
		return Error(err)
	}
	return Result{kind: resultReply, value: v}
}

// NoReply answers later: work runs on its own goroutine once the handler
// has returned, may stream progress, logs and server-to-client requests
// through s, and the Result it returns is the request's final reply. The
// work and the promise of a reply are one value, so neither can be
// forgotten. When the client declared the tasks extension and the tool
// supports tasks (Tasks), the work runs as a task the client polls.
//
//	return specter.NoReply(func(s *specter.Stream) specter.Result {
//		s.Progress(1, 2, "working")
//		return specter.Reply(doWork(s))
//	})
func NoReply(work func(s *Stream) Result) Result {
	if work == nil {
		return Error(errors.New("specter: NoReply(nil): NoReply needs the work that produces the reply"))
	}
	return Result{kind: resultNoReply, work: work}
}

// Error fails the request. A *ToolError (and a params validation error)
// becomes a tool result with isError, which the LLM reads; any other error
// becomes a JSON-RPC internal error whose detail goes only to the router's
// error reporter and log.
func Error(err error) Result {
	if err == nil {
		err = errors.New("specter: Error(nil)")
	}
	return Result{kind: resultError, err: err}
}

// Value is what Reply answered, Err what Error failed with, and Pending
// reports a NoReply, whose reply comes later (see Then).
func (r Result) Value() any    { return r.value }
func (r Result) Err() error    { return r.err }
func (r Result) Pending() bool { return r.kind == resultNoReply }

// Then returns r with f applied to its final reply: to r itself, or, for
// a NoReply, to the reply of its work, on the work's goroutine. Middleware
// decorates or replaces results with it.
func (r Result) Then(f func(Result) Result) Result {
	if r.kind != resultNoReply {
		return f(r)
	}
	return Result{kind: resultNoReply, work: func(s *Stream) Result { return f(r.work(s)) }}
}

// UserMessage returns a prompt message from the user; content is a string
// or an mcp.Content.
func UserMessage(content any) mcp.PromptMessage { return methods.PromptMessage(mcp.RoleUser, content) }

// AssistantMessage returns a prompt message from the assistant.
func AssistantMessage(content any) mcp.PromptMessage {
	return methods.PromptMessage(mcp.RoleAssistant, content)
}
