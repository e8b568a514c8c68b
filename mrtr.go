package specter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/seal"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// ErrInputRequired is returned by Elicit, Sample and ListRoots on the
// stateless 2026-07-28 wire when the answer is not in the request yet.
// Return it (specter.Error(err)) and the client gets an input_required
// result; it asks the user (or its LLM) and calls again with the answer,
// and the handler runs again, this time receiving it. In a session the
// same calls block until the client answers instead, so one handler body
// serves both eras. Several calls may fail with it in one run: the client
// is then asked everything at once (errors.Join their errors).
var ErrInputRequired = errors.New("specter: input required from the client")

// ErrInputTimeout is wrapped by the error of Elicit, Sample and ListRoots
// when the client did not answer within the router's InputTimeout.
var ErrInputTimeout = errors.New("specter: the client did not answer in time")

// ErrSessionEnded is wrapped by the error of Elicit, Sample and ListRoots
// when the session ended (the client deleted it, it timed out, or the
// router shut down) while the handler waited for the client's answer.
var ErrSessionEnded = errors.New("specter: the session ended before the client answered")

// CapabilityError is returned by Elicit, Sample and ListRoots when the
// client did not declare the capability they need. It matches
// ErrCapability with errors.Is. A handler that returns it answers with
// JSON-RPC error -32021 naming the capability.
type CapabilityError struct {
	// Capability is the dotted path of what is missing: "sampling",
	// "elicitation", "elicitation.url" or "roots".
	Capability string
	Method     string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("%s needs the client capability %q, which the client did not declare", e.Method, e.Capability)
}

// Is makes errors.Is(err, ErrCapability) true.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapability }

// required is the capability as a ClientCapabilities object.
func (e *CapabilityError) required() map[string]any {
	out := map[string]any{}
	cur := out
	parts := strings.Split(e.Capability, ".")
	for i, p := range parts {
		next := map[string]any{}
		cur[p] = next
		if i < len(parts)-1 {
			cur = next
		}
	}
	return out
}

// InputOption configures an Elicit, Sample or ListRoots call.
type InputOption func(*inputOptions)

type inputOptions struct{ key string }

// InputKey names the question in a multi round-trip request (the key of
// inputRequests and inputResponses). By default calls are numbered per
// method in the order they are made ("elicitation-1", "sampling-1",
// "roots-1"), which is stable as long as the handler asks the same
// questions in the same order.
func InputKey(key string) InputOption { return func(o *inputOptions) { o.key = key } }

func (m *modernCall) nextKey(method string, opts []InputOption) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var o inputOptions
	for _, f := range opts {
		f(&o)
	}
	if o.key != "" {
		return o.key
	}
	if m.counters == nil {
		m.counters = map[string]int{}
	}
	short, _, _ := strings.Cut(method, "/")
	m.counters[short]++
	return short + "-" + strconv.Itoa(m.counters[short])
}

// input answers a server-to-client request from the retry's answers, or
// records it as a question for the client and fails with ErrInputRequired.
func (m *modernCall) input(key, method string, params any, result any, valid func() bool) error {
	if !m.inputAllowed {
		return fmt.Errorf("specter: %s cannot ask the client for input; only tools/call, prompts/get and resources/read can", method)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if raw, ok := m.answers[key]; ok {
		if json.Unmarshal(raw, result) == nil && valid() {
			return nil
		}
		// An answer of the wrong shape is no answer: ask again.
		delete(m.answers, key)
	}
	if m.pending == nil {
		m.pending = map[string]mcp.InputRequest{}
	}
	m.pending[key] = mcp.InputRequest{Method: method, Params: params}
	return fmt.Errorf("%w: %s (%s)", ErrInputRequired, method, key)
}

// openState merges the answers carried by requestState with this round's
// inputResponses. A state that fails verification is refused (-32602).
func (x *exchange) openState() *jsonrpc.Error {
	call := x.c.req.modern
	call.answers = map[string]json.RawMessage{}
	if call.requestState != "" {
		st, err := x.r.sealer.Open(call.requestState, x.c.scope.principal, x.c.req.Method, x.c.req.Name)
		if err != nil {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", err.Error())
		}
		for k, v := range st.Answers {
			call.answers[k] = v
		}
	}
	for k, v := range call.responses {
		if len(v) > 0 && string(v) != "null" {
			call.answers[k] = v
		}
	}
	return nil
}

// inputRequired builds the input_required result: the questions this run
// asked, and the answers so far sealed in requestState.
func (x *exchange) inputRequired(d *declaration) handlers.Reply {
	call := x.c.req.modern
	if len(call.pending) == 0 {
		return handlers.Fail(x.internal(fmt.Errorf("%s %q returned ErrInputRequired without asking for input", d.kind, d.name)))
	}
	st := &seal.State{Principal: x.c.scope.principal, Method: x.c.req.Method, Name: x.c.req.Name, Answers: call.answers}
	token, err := x.r.sealer.Seal(st)
	if err != nil {
		return handlers.Fail(x.internal(err))
	}
	res := &mcp.InputRequiredResult{InputRequests: call.pending, RequestState: token}
	res.ResultType = mcp.ResultInputRequired
	return handlers.Result(res)
}

// cacheable lists the methods whose results carry caching hints.
var cacheable = map[string]bool{
	handlers.MethodDiscover: true, handlers.MethodToolsList: true, handlers.MethodPromptsList: true,
	handlers.MethodResourcesList: true, handlers.MethodResourceTemplatesList: true, handlers.MethodResourcesRead: true,
	handlers.MethodSkillsList: true, handlers.MethodSkillsGet: true,
}

// decorate adds what the 2026-07-28 revision puts on results: the result
// type, the server's identity, and caching hints where they are required.
func (x *exchange) decorate(result any) {
	b, ok := result.(interface{ Base() *mcp.ResultBase })
	if !ok {
		return
	}
	base := b.Base()
	if base.ResultType == "" {
		base.ResultType = mcp.ResultComplete
	}
	meta := make(mcp.Meta, len(base.Meta)+1) // a copy: the handler's map may be shared
	for k, v := range base.Meta {
		meta[k] = v
	}
	base.Meta = meta
	base.Meta[mcp.MetaServerInfo] = mcp.Implementation{Name: x.r.info.Name, Version: x.r.info.Version}
	if base.ResultType != mcp.ResultComplete || !cacheable[x.c.req.Method] {
		return
	}
	hint := x.r.cfg.cache
	if m := x.c.req.Method; m == handlers.MethodResourcesRead || m == handlers.MethodSkillsGet {
		if d, _ := x.cat.resourceFor(x.c.req.Name); d != nil && d.cache != nil {
			hint = *d.cache
		}
	}
	ttl := hint.ttl.Milliseconds()
	base.TTLMs = &ttl
	base.CacheScope = hint.scope
	if x.c.scope.filtered() || x.c.scope.principal != "" || x.hid {
		// What this caller sees depends on who it is.
		base.CacheScope = mcp.CachePrivate
	}
}

// cacheHint is how long and by whom a result may be cached.
type cacheHint struct {
	ttl   time.Duration
	scope string
}
