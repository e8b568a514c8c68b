package specter

import (
	"fmt"

	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
)

// ErrInputRequired is returned by Elicit, Sample and ListRoots on the
// stateless 2026-07-28 wire when the answer is not in the request yet.
// Return it (specter.Error(err)) and the client gets an input_required
// result; it asks the user (or its LLM) and calls again with the answer,
// and the handler runs again, this time receiving it. In a session the
// same calls block until the client answers instead, so one handler body
// serves both eras. Several calls may fail with it in one run: the client
// is then asked everything at once (errors.Join their errors).
var ErrInputRequired = stateless.ErrInputRequired

// ErrInputTimeout is wrapped by the error of Elicit, Sample and ListRoots
// when the client did not answer within the router's InputTimeout.
var ErrInputTimeout = session.ErrInputTimeout

// ErrSessionEnded is wrapped by the error of Elicit, Sample and ListRoots
// when the session ended (the client deleted it, it timed out, or the
// router shut down) while the handler waited for the client's answer.
var ErrSessionEnded = session.ErrEnded

// CapabilityError is returned by Elicit, Sample and ListRoots when the
// client did not declare the capability they need. It matches
// ErrCapability with errors.Is. A handler that returns it answers with
// JSON-RPC error -32021 naming the capability.
type CapabilityError struct {
	// Capability is the dotted path of what is missing: "sampling",
	// "sampling.tools", "elicitation", "elicitation.url" or "roots".
	Capability string
	Method     string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("%s needs the client capability %q, which the client did not declare", e.Method, e.Capability)
}

// Is makes errors.Is(err, ErrCapability) true.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapability }

// InputOption configures an Elicit, Sample or ListRoots call.
type InputOption func(*inputOptions)

type inputOptions struct{ key string }

// InputKey names the question in a multi round-trip request (the key of
// inputRequests and inputResponses). By default calls are numbered per
// method in the order they are made ("elicitation-1", "sampling-1",
// "roots-1"), which is stable as long as the handler asks the same
// questions in the same order.
func InputKey(key string) InputOption { return func(o *inputOptions) { o.key = key } }

// inputKey is the key InputKey set, or "" to number the question.
func inputKey(opts []InputOption) string {
	var o inputOptions
	for _, f := range opts {
		f(&o)
	}
	return o.key
}
