package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// asker is what the gateway asks its own caller through: the *Stream of a
// tool call, or the *Context of a prompt.
type asker interface {
	Elicit(message string, schema *params.Schema, opts ...specter.InputOption) (specter.Params, specter.ElicitAction, error)
	ElicitURL(message, url, elicitationID string, opts ...specter.InputOption) (specter.ElicitAction, error)
	Sample(p *mcp.CreateMessageParams, opts ...specter.InputOption) (*mcp.CreateMessageResult, error)
	ListRoots(opts ...specter.InputOption) ([]mcp.Root, error)
}

// call is one forwarded call, which the server's requests are relayed
// from to the caller.
type call struct {
	ask    asker
	cancel context.CancelFunc

	mu      sync.Mutex
	pending error // the caller's ErrInputRequired (2026-07-28)
}

type callKey struct{}

// relayed returns a context for forwarding a request of the caller ask,
// under which the server's requests go to ask; end reports the
// ErrInputRequired of a question the caller must answer in a retry, and
// releases the context.
func relayed(ctx context.Context, ask asker) (rctx context.Context, end func() error) {
	ctx, cancel := context.WithCancel(ctx)
	c := &call{ask: ask, cancel: cancel}
	return context.WithValue(ctx, callKey{}, c), func() error {
		cancel()
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.pending
	}
}

// asked records the caller's answer to a relayed question: on 2026-07-28
// the first is ErrInputRequired, and the forwarded call stops there, for
// the caller retries it with the answer (and the server asks again).
func (c *call) asked(err error) error {
	if errors.Is(err, specter.ErrInputRequired) {
		c.mu.Lock()
		c.pending = errors.Join(c.pending, err)
		c.mu.Unlock()
		c.cancel()
	}
	return err
}

func callOf(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// Relay returns a copy of opts (nil for none) whose sampling, elicitation
// (form and URL) and roots handlers relay each request of the server to
// the gateway client whose call caused it, and the answer back: give it
// as the Options of the Host's servers. Requests no gateway call caused
// (roots asked at initialization, say), or whose call the transport
// cannot tell (stdio in the session era), go to opts' own handlers; a
// sampling or elicitation request without one fails, and roots are then
// none. A caller that did not declare the capability the request needs
// answers it with an error.
func Relay(opts *client.Options) *client.Options {
	var o client.Options
	if opts != nil {
		o = *opts
	}
	sample, elicit, roots := o.Sampling, o.Elicitation, o.Roots
	o.Sampling = func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		c := callOf(ctx)
		switch {
		case c != nil:
			res, err := c.ask.Sample(p)
			return res, c.asked(err)
		case sample != nil:
			return sample(ctx, p)
		}
		return nil, errors.New("gateway: a sampling request outside a call")
	}
	o.Elicitation = func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		c := callOf(ctx)
		switch {
		case c != nil:
			return c.elicit(p)
		case elicit != nil:
			return elicit(ctx, p)
		}
		return nil, errors.New("gateway: an elicitation request outside a call")
	}
	o.ElicitURL = true
	o.Roots = func(ctx context.Context) ([]mcp.Root, error) {
		c := callOf(ctx)
		switch {
		case c != nil:
			rs, err := c.ask.ListRoots()
			return rs, c.asked(err)
		case roots != nil:
			return roots(ctx)
		}
		return nil, nil
	}
	return &o
}

// elicit relays an elicitation: a form is asked with the server's schema
// (and the answer checked against it), a URL as it is.
func (c *call) elicit(p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p.Mode == "url" {
		action, err := c.ask.ElicitURL(p.Message, p.URL, p.ElicitationID)
		if err != nil {
			return nil, c.asked(err)
		}
		return &mcp.ElicitResult{Action: string(action)}, nil
	}
	schema, err := params.Raw(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("gateway: the server's elicitation schema: %w", err)
	}
	vals, action, err := c.ask.Elicit(p.Message, schema)
	if err != nil {
		return nil, c.asked(err)
	}
	return &mcp.ElicitResult{Action: string(action), Content: vals}, nil
}
