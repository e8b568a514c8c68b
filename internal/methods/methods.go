package methods

import (
	"bytes"
	"encoding/json"

	"github.com/specter-mcp/specter/internal/jsonscan"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Func answers one method.
type Func func(s Server, params json.RawMessage) Outcome

// session lists the methods of the session era, except initialize, which
// the transport answers because it creates the session.
var session = map[string]Func{
	mcp.MethodPing:                  ping,
	mcp.MethodSetLevel:              setLevel,
	mcp.MethodToolsList:             listTools,
	mcp.MethodToolsCall:             callTool,
	mcp.MethodPromptsList:           listPrompts,
	mcp.MethodPromptsGet:            getPrompt,
	mcp.MethodResourcesList:         listResources,
	mcp.MethodResourceTemplatesList: listTemplates,
	mcp.MethodResourcesRead:         readResource,
	mcp.MethodResourcesSubscribe:    subscribe,
	mcp.MethodResourcesUnsubscribe:  unsubscribe,
	mcp.MethodComplete:              complete,
	// Tasks (2025-11-25).
	mcp.MethodTasksGet:    taskMethod(mcp.MethodTasksGet),
	mcp.MethodTasksResult: taskMethod(mcp.MethodTasksResult),
	mcp.MethodTasksCancel: taskMethod(mcp.MethodTasksCancel),
	mcp.MethodTasksList:   listTasks,
}

// stateless lists the methods of the 2026-07-28 revision, except
// subscriptions/listen, which the transport answers with a stream.
var stateless = map[string]Func{
	mcp.MethodDiscover:              discover,
	mcp.MethodToolsList:             listTools,
	mcp.MethodToolsCall:             callTool,
	mcp.MethodPromptsList:           listPrompts,
	mcp.MethodPromptsGet:            getPrompt,
	mcp.MethodResourcesList:         listResources,
	mcp.MethodResourceTemplatesList: listTemplates,
	mcp.MethodResourcesRead:         readResource,
	mcp.MethodComplete:              complete,
	// The skills extension (SEP-2640).
	mcp.MethodSkillsList:             listSkills,
	mcp.MethodSkillsGet:              getSkill,
	mcp.MethodResourcesDirectoryRead: readDirectory,
}

// Lookup returns the session-era method named method.
func Lookup(method string) (Func, bool) {
	f, ok := session[method]
	return f, ok
}

// LookupStateless returns the 2026-07-28 method named method. Methods that
// revision removed (initialize, ping, logging/setLevel,
// resources/subscribe, resources/unsubscribe) are not found.
func LookupStateless(method string) (Func, bool) {
	f, ok := stateless[method]
	return f, ok
}

// Find returns the method a request names, or the error that answers
// the request instead. In a session (inSession) the params are checked
// first, as the 2026-07-28 transport checks them before connect runs, and
// initialize is refused: the session is initialized already.
func Find(method string, params json.RawMessage, inSession bool) (Func, *jsonrpc.Error) {
	methods := stateless
	if inSession {
		if e := CheckParams(params); e != nil {
			return nil, e
		}
		if method == mcp.MethodInitialize {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is already initialized")
		}
		methods = session
	}
	if f, ok := methods[method]; ok {
		return f, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

func discover(s Server, _ json.RawMessage) Outcome { return Answer(s.Discover()) }

// decode reads params into v; absent or null params leave v as is.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || bytes.Equal(params, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", jsonrpc.DescribeParams(err))
	}
	return nil
}

// plainCallTool reads tools/call params as decode would, without
// reflection, when they are an object whose "name" is a string or null and
// whose members are spelled exactly; other params go to decode (ok false),
// whose errors say what is wrong. What it returns aliases params, and
// its name is known (the request's envelope read it) when the two agree.
func plainCallTool(params json.RawMessage, known string) (p mcp.CallToolParams, ok bool) {
	o, isObject := jsonscan.Members(params)
	if !isObject {
		return p, false
	}
	for {
		key, value, more := o.Next()
		if !more {
			return p, true
		}
		switch string(key) {
		case "name":
			if value[0] == 'n' {
				continue // null leaves the name as it is
			}
			if len(value) == len(known)+2 && string(value[1:len(value)-1]) == known && bytes.IndexByte(value, '\\') < 0 {
				p.Name = known // read already; no second copy
				continue
			}
			if p.Name, ok = jsonscan.String(value); !ok {
				return p, false
			}
		case "arguments":
			p.Arguments = value
		case "_meta":
			p.Meta = value
		default:
			if bytes.EqualFold(key, []byte("name")) || bytes.EqualFold(key, []byte("arguments")) || bytes.EqualFold(key, []byte("_meta")) {
				return p, false // encoding/json would match the key up to case
			}
		}
	}
}

func invalidParams(format string, args ...any) Outcome {
	return Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...))
}

func ping(Server, json.RawMessage) Outcome { return Answer(mcp.EmptyResult{}) }

func setLevel(s Server, params json.RawMessage) Outcome {
	var p mcp.SetLevelParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.Level.Severity() < 0 {
		return invalidParams("Invalid params: unknown logging level %q; use debug, info, notice, warning, error, critical, alert or emergency", p.Level)
	}
	s.SetLogLevel(p.Level)
	return Answer(mcp.EmptyResult{})
}

// list answers a paginated list: the page of items at the request's
// cursor, shaped into the method's result by build.
func list[T any](s Server, params json.RawMessage, items []*T, build func(page []T, next string) any) Outcome {
	var p mcp.PaginatedParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	page, next, err := paginate(items, p.Cursor, s.PageSize())
	if err != nil {
		return Failed(err)
	}
	out := make([]T, len(page))
	for i, item := range page {
		out[i] = *item
	}
	return Answer(build(out, next))
}

func listTools(s Server, params json.RawMessage) Outcome {
	return list(s, params, s.Tools(), func(page []mcp.Tool, next string) any {
		return &mcp.ListToolsResult{Tools: page, NextCursor: next}
	})
}

// ReadCallTool reads tools/call params for a caller that calls
// Server.CallTool itself, as callTool would: ok false leaves them to the
// method, whose errors say what is wrong. known is the name the request's
// envelope read.
func ReadCallTool(params json.RawMessage, known string) (name string, args json.RawMessage, ok bool) {
	p, ok := plainCallTool(params, known)
	if !ok || p.Name == "" {
		return "", nil, false
	}
	return p.Name, p.Arguments, true
}

func callTool(s Server, params json.RawMessage) Outcome {
	p, ok := plainCallTool(params, s.EnvelopeName())
	if !ok {
		if err := decode(params, &p); err != nil {
			return Failed(err)
		}
	}
	if p.Name == "" {
		return invalidParams(`Invalid params: "name" is required`)
	}
	return s.CallTool(p.Name, p.Arguments)
}

func listPrompts(s Server, params json.RawMessage) Outcome {
	return list(s, params, s.Prompts(), func(page []mcp.Prompt, next string) any {
		return &mcp.ListPromptsResult{Prompts: page, NextCursor: next}
	})
}

func getPrompt(s Server, params json.RawMessage) Outcome {
	var p mcp.GetPromptParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.Name == "" {
		return invalidParams(`Invalid params: "name" is required`)
	}
	return s.GetPrompt(p.Name, p.Arguments)
}

func listTemplates(s Server, params json.RawMessage) Outcome {
	return list(s, params, s.Templates(), func(page []mcp.ResourceTemplate, next string) any {
		return &mcp.ListResourceTemplatesResult{ResourceTemplates: page, NextCursor: next}
	})
}

func readResource(s Server, params json.RawMessage) Outcome {
	var p mcp.ReadResourceParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.URI == "" {
		return invalidParams(`Invalid params: "uri" is required`)
	}
	return s.ReadResource(p.URI)
}

func subscribe(s Server, params json.RawMessage) Outcome   { return setSubscription(s, params, true) }
func unsubscribe(s Server, params json.RawMessage) Outcome { return setSubscription(s, params, false) }

func setSubscription(s Server, params json.RawMessage, on bool) Outcome {
	var p mcp.ReadResourceParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	if p.URI == "" {
		return invalidParams(`Invalid params: "uri" is required`)
	}
	if err := s.Subscribe(p.URI, on); err != nil {
		return Failed(err)
	}
	return Answer(mcp.EmptyResult{})
}

func complete(s Server, params json.RawMessage) Outcome {
	var p mcp.CompleteParams
	if err := decode(params, &p); err != nil {
		return Failed(err)
	}
	switch {
	case p.Ref.Type == mcp.RefPrompt && p.Ref.Name == "":
		return invalidParams(`Invalid params: "ref.name" is required for ref/prompt`)
	case p.Ref.Type == mcp.RefResource && p.Ref.URI == "":
		return invalidParams(`Invalid params: "ref.uri" is required for ref/resource`)
	case p.Ref.Type != mcp.RefPrompt && p.Ref.Type != mcp.RefResource:
		return invalidParams(`Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"`)
	case p.Argument.Name == "":
		return invalidParams(`Invalid params: "argument.name" is required`)
	}
	c, err := s.Complete(&p)
	if err != nil {
		return Failed(err)
	}
	if c.Values == nil {
		c.Values = []string{}
	}
	if len(c.Values) > MaxCompletionValues {
		total := len(c.Values)
		if c.Total != nil {
			total = *c.Total
		}
		c.Values, c.Total, c.HasMore = c.Values[:MaxCompletionValues], &total, true
	}
	return Answer(&mcp.CompleteResult{Completion: *c})
}

// taskMethod answers tasks/get, tasks/result or tasks/cancel.
func taskMethod(method string) Func {
	return func(s Server, params json.RawMessage) Outcome {
		var p struct {
			TaskID string `json:"taskId"`
		}
		if err := decode(params, &p); err != nil {
			return Failed(err)
		}
		if p.TaskID == "" {
			return invalidParams(`Invalid params: "taskId" is required`)
		}
		return s.Task(method, p.TaskID)
	}
}

func listTasks(s Server, params json.RawMessage) Outcome {
	tasks, err := s.Tasks()
	if err != nil {
		return Failed(err)
	}
	return list(s, params, tasks, func(page []mcp.SessionTask, next string) any {
		return &mcp.ListTasksResult{Tasks: page, NextCursor: next}
	})
}

// MaxCompletionValues is the most values one completion may carry (spec).
const MaxCompletionValues = 100
