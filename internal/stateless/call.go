package stateless

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"strconv"
	"strings"
	"sync"
)

// ErrInputRequired is what asking for input fails with while the answer
// is not in the request yet; specter.ErrInputRequired is the same error.
var ErrInputRequired = errors.New("specter: input required from the client")

// ErrNothingAsked is what InputRequired fails with when no question was
// recorded: a handler returned ErrInputRequired without asking.
var ErrNothingAsked = errors.New("returned ErrInputRequired without asking for input")

// Call is the per-request state of a 2026-07-28 request: its _meta and,
// for a multi round-trip request, the questions and answers of this
// round. Key and Input are safe for concurrent use, since a handler may
// ask from several goroutines.
type Call struct {
	Meta         mcp.RequestMeta
	RequestState string                     // the sealed state the client sent back, if any
	Responses    map[string]json.RawMessage // this round's inputResponses
	InputAllowed bool                       // the method may ask the client for input

	mu       sync.Mutex
	answers  map[string]json.RawMessage // every answer so far, once opened
	pending  map[string]mcp.InputRequest
	counters map[string]int
}

// Client returns the protocol version, the client's info and its
// capabilities as the request's _meta tells them.
func (c *Call) Client() (version string, info mcp.Implementation, caps mcp.ClientCapabilities) {
	if c.Meta.ClientInfo != nil {
		info = *c.Meta.ClientInfo
	}
	if c.Meta.ClientCapabilities != nil {
		caps = *c.Meta.ClientCapabilities
	}
	return c.Meta.ProtocolVersion, info, caps
}

// Key names a question: key if it is set, else the method's first word
// numbered in the order of asking ("elicitation-1", "sampling-1",
// "roots-1"), stable as long as a handler asks the same questions in the
// same order.
func (c *Call) Key(method, key string) string {
	if key != "" {
		return key
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counters == nil {
		c.counters = map[string]int{}
	}
	short, _, _ := strings.Cut(method, "/")
	c.counters[short]++
	return short + "-" + strconv.Itoa(c.counters[short])
}

// Input answers the client request method from the answer under key:
// decoded into result and accepted by valid. Without a usable answer it
// records the question and fails with ErrInputRequired; an answer of the
// wrong shape is no answer, so the question is asked again. It fails for
// a method that may not ask for input.
func (c *Call) Input(key, method string, params, result any, valid func() bool) error {
	if !c.InputAllowed {
		return fmt.Errorf("specter: %s cannot ask the client for input; only tools/call, prompts/get and resources/read can", method)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if raw, ok := c.answers[key]; ok {
		if json.Unmarshal(raw, result) == nil && valid() {
			return nil
		}
		delete(c.answers, key)
	}
	if c.pending == nil {
		c.pending = map[string]mcp.InputRequest{}
	}
	c.pending[key] = mcp.InputRequest{Method: method, Params: params}
	return fmt.Errorf("%w: %s (%s)", ErrInputRequired, method, key)
}

// Open gathers the answers before the handler runs: those sealed in
// RequestState, which must open with s for the binding bind returns (this
// caller, request and arguments; digesting them costs, so bind runs only
// for a state), then this round's non-null responses, which win. A state
// that does not open is refused with -32602. Answers sent without a state
// are taken as they are: a client may answer up front. A call with
// neither allocates nothing.
func (c *Call) Open(s *Sealer, bind func() Binding) *jsonrpc.Error {
	if c.RequestState != "" {
		st, err := s.Open(c.RequestState, bind())
		if err != nil {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", err.Error())
		}
		c.answers = st.Answers // decoded for this call alone
	}
	for k, v := range c.Responses {
		if len(v) > 0 && string(v) != "null" {
			if c.answers == nil {
				c.answers = map[string]json.RawMessage{}
			}
			c.answers[k] = v
		}
	}
	return nil
}

// InputRequired is the input_required result of a run that asked: the
// questions it asked, and the answers so far sealed with s in
// requestState, bound to b, for the client to send back. It fails with
// ErrNothingAsked when the run asked nothing.
func (c *Call) InputRequired(s *Sealer, b Binding) (*mcp.InputRequiredResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil, ErrNothingAsked
	}
	token, err := s.Seal(&State{Binding: b, Answers: c.answers})
	if err != nil {
		return nil, err
	}
	res := &mcp.InputRequiredResult{InputRequests: c.pending, RequestState: token}
	res.ResultType = mcp.ResultInputRequired
	return res, nil
}
