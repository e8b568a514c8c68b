package specter

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

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

// UserMessage returns a prompt message from the user; content is a string
// or an mcp.Content.
func UserMessage(content any) mcp.PromptMessage { return promptMessage(mcp.RoleUser, content) }

// AssistantMessage returns a prompt message from the assistant.
func AssistantMessage(content any) mcp.PromptMessage {
	return promptMessage(mcp.RoleAssistant, content)
}

func promptMessage(role mcp.Role, content any) mcp.PromptMessage {
	switch c := content.(type) {
	case mcp.Content:
		return mcp.PromptMessage{Role: role, Content: c}
	case string:
		return mcp.PromptMessage{Role: role, Content: mcp.Text(c)}
	}
	return mcp.PromptMessage{Role: role, Content: mcp.Text(fmt.Sprint(content))}
}

// toolResult wraps a reply value as a tool result.
func toolResult(v any, structured bool) (*mcp.CallToolResult, error) {
	res := &mcp.CallToolResult{}
	switch x := v.(type) {
	case nil:
		res.Content = []mcp.Content{}
	case *mcp.CallToolResult:
		c := *x // the handler may share it between requests; it is decorated per era
		if c.Content == nil {
			c.Content = []mcp.Content{}
		}
		return &c, nil
	case mcp.CallToolResult:
		return toolResult(&x, structured)
	case string:
		res.Content = []mcp.Content{mcp.Text(x)}
	case mcp.Content:
		res.Content = []mcp.Content{x}
	case []mcp.Content:
		res.Content = x
	default:
		b, err := marshalJSON(v)
		if err != nil {
			return nil, fmt.Errorf("specter: encode tool reply %T: %w", v, err)
		}
		res.Content = []mcp.Content{mcp.Text(string(b))}
		if structured && len(b) > 0 && b[0] == '{' {
			res.StructuredContent = b
		}
	}
	return res, nil
}

func marshalJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, errors.New("invalid JSON")
		}
		return raw, nil
	}
	return json.Marshal(v)
}

// toolErrorResult is the isError result for an error the model should see.
func toolErrorResult(message string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(message)}, IsError: true}
}

// promptResult wraps a reply value as a prompt result.
func promptResult(v any, description string) (*mcp.GetPromptResult, error) {
	res := &mcp.GetPromptResult{Description: description}
	switch x := v.(type) {
	case *mcp.GetPromptResult:
		c := *x
		return &c, nil
	case mcp.GetPromptResult:
		return &x, nil
	case string:
		res.Messages = []mcp.PromptMessage{UserMessage(x)}
	case mcp.PromptMessage:
		res.Messages = []mcp.PromptMessage{x}
	case []mcp.PromptMessage:
		res.Messages = x
	case mcp.Content:
		res.Messages = []mcp.PromptMessage{UserMessage(x)}
	case []mcp.Content:
		for _, c := range x {
			res.Messages = append(res.Messages, UserMessage(c))
		}
	default:
		b, err := marshalJSON(v)
		if err != nil {
			return nil, fmt.Errorf("specter: encode prompt reply %T: %w", v, err)
		}
		res.Messages = []mcp.PromptMessage{UserMessage(string(b))}
	}
	if res.Messages == nil {
		res.Messages = []mcp.PromptMessage{}
	}
	for _, m := range res.Messages {
		if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant {
			return nil, fmt.Errorf("specter: prompt message role %q: use user or assistant", m.Role)
		}
	}
	return res, nil
}

// resourceResult wraps a reply value as resource contents.
func resourceResult(v any, uri, mimeType string) (*mcp.ReadResourceResult, error) {
	one := func(c mcp.ResourceContents) *mcp.ReadResourceResult {
		if c.URI == "" {
			c.URI = uri
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}
	}
	switch x := v.(type) {
	case *mcp.ReadResourceResult:
		c := *x
		return &c, nil
	case mcp.ResourceContents:
		return one(x), nil
	case []mcp.ResourceContents:
		for i := range x {
			if x[i].URI == "" {
				x[i].URI = uri
			}
		}
		return &mcp.ReadResourceResult{Contents: x}, nil
	case string:
		return one(mcp.TextResource(uri, orDefault(mimeType, "text/plain"), x)), nil
	case []byte:
		return one(mcp.BlobResource(uri, orDefault(mimeType, "application/octet-stream"), base64.StdEncoding.EncodeToString(x))), nil
	}
	b, err := marshalJSON(v)
	if err != nil {
		return nil, fmt.Errorf("specter: encode resource reply %T: %w", v, err)
	}
	return one(mcp.TextResource(uri, orDefault(mimeType, "application/json"), string(b))), nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
