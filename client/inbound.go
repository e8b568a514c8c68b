package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// receive handles what the server sends outside of responses. Requests
// are answered in their own goroutine, so that a slow handler (a person
// filling in a form) holds up nothing else, in the context of the call
// on whose stream they came (ctx), or else the client's: at most
// MaxServerRequests at a time, as many more refused with -32000, and any
// beyond those dropped, so that a flood of requests costs a bounded
// number of goroutines.
func (c *Client) receive(ctx context.Context, m *jsonrpc.Message) {
	switch {
	case m.Method == "":
		return // a response nobody waits for any more
	case m.ID.IsZero():
		c.notified(ctx, m)
	default:
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		answer := c.respond
		select {
		case c.handling <- struct{}{}:
		default:
			select {
			case c.refusing <- struct{}{}:
				answer = c.refuse
			default:
				c.mu.Unlock()
				c.warn(nil, "dropped the server's "+m.Method+" request: too many at once")
				return
			}
		}
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			answer(ctx, m)
		}()
	}
}

// codeBusy refuses a server request over MaxServerRequests, from the
// implementation-defined range, as Specter's servers refuse load.
const codeBusy = -32000

// refuse answers a request over the bound with an error.
func (c *Client) refuse(_ context.Context, m *jsonrpc.Message) {
	defer func() { <-c.refusing }()
	c.reply(m, nil, jsonrpc.Errorf(codeBusy, "the client is busy: %d requests of the server are in progress", cap(c.handling)))
}

// notified handles a notification; ctx is that of the call on whose
// stream it came, or nil.
func (c *Client) notified(ctx context.Context, m *jsonrpc.Message) {
	switch m.Method {
	case mcp.NotificationProgress:
		var p mcp.ProgressParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		c.mu.Lock()
		fn := c.progress[string(p.ProgressToken)]
		c.mu.Unlock()
		if fn != nil {
			fn(p)
		}
	case mcp.NotificationMessage:
		onLog := c.opts.OnLog
		if ctx != nil {
			if fn, ok := ctx.Value(callLogKey{}).(func(mcp.LoggingMessageParams)); ok {
				onLog = fn
			}
		}
		var p mcp.LoggingMessageParams
		if onLog != nil && json.Unmarshal(m.Params, &p) == nil {
			onLog(p)
		}
	default:
		if m.Method == mcp.NotificationToolsChanged {
			c.mu.Lock()
			clear(c.headers)
			clear(c.taskSupport)
			c.mu.Unlock()
		}
		if c.opts.OnNotification != nil {
			c.opts.OnNotification(m.Method, m.Params)
		}
	}
}

// respond answers a session-era server request, in one of the
// MaxServerRequests slots that receive took for it, and in the context
// of the call that caused it when known: it keeps the call's values, and
// ends with the client.
func (c *Client) respond(ctx context.Context, m *jsonrpc.Message) {
	defer func() { <-c.handling }()
	result, err := c.serveTask(m)
	if result == nil && err == nil {
		actx := c.ctx
		if ctx != nil {
			var stop context.CancelFunc
			actx, stop = context.WithCancel(ctx)
			defer context.AfterFunc(c.ctx, stop)()
			defer stop()
		}
		result, err = c.answer(actx, m.Method, m.Params)
	}
	c.reply(m, result, err)
}

// reply sends the response to a server request: result, or err.
func (c *Client) reply(m *jsonrpc.Message, result any, err error) {
	resp := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID}
	if err == nil {
		resp.Result, err = json.Marshal(result)
	}
	if err != nil {
		resp.Result, resp.Error = nil, rpcError(err)
	}
	if err := c.conn.send(c.ctx, &outgoing{msg: resp, header: c.header("", nil)}); err != nil && c.ctx.Err() == nil {
		c.warn(err, "answering "+m.Method+" failed")
	}
}

// answerAll answers the input requests of an input_required result, with
// the same handlers as session-era server requests.
func (c *Client) answerAll(ctx context.Context, reqs map[string]json.RawMessage) (json.RawMessage, error) {
	out := make(map[string]any, len(reqs))
	for key, raw := range reqs {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("input request %q: %w", key, err)
		}
		res, err := c.answer(ctx, r.Method, r.Params)
		if err != nil {
			return nil, fmt.Errorf("input request %q (%s): %w", key, r.Method, err)
		}
		out[key] = res
	}
	return json.Marshal(out)
}

// answer runs the handler for a server-to-client request.
func (c *Client) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case mcp.MethodPing:
		return mcp.EmptyResult{}, nil
	case mcp.MethodElicit:
		if c.opts.Elicitation == nil {
			break
		}
		var p mcp.ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "elicitation/create: %v", err)
		}
		// A mode the client did not declare never reaches the handler,
		// which was written for the declared ones (a URL shown as a form's
		// message would be a phishing link).
		switch p.Mode {
		case "", "form":
		case "url":
			if !c.opts.ElicitURL {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "elicitation/create: the client did not declare the url mode")
			}
		default:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "elicitation/create: unknown mode %q", p.Mode)
		}
		res, err := c.opts.Elicitation(ctx, &p)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("the elicitation handler gave no result")
		}
		if res.Action == "accept" && p.Mode != "url" {
			res.Content = withDefaults(p.RequestedSchema, res.Content)
		}
		if p.Mode == "url" {
			res.Content = nil
		}
		return res, nil
	case mcp.MethodSample:
		if c.opts.Sampling == nil {
			break
		}
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "sampling/createMessage: %v", err)
		}
		if (len(p.Tools) > 0 || p.ToolChoice != nil) && !c.opts.SamplingTools {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "sampling/createMessage: this client did not declare sampling.tools")
		}
		res, err := c.opts.Sampling(ctx, &p)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("the sampling handler gave no result")
		}
		return res, nil
	case mcp.MethodListRoots:
		if c.opts.Roots == nil {
			break
		}
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []mcp.Root{}
		}
		return mcp.ListRootsResult{Roots: roots}, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "the client does not handle %s", method)
}

// withDefaults fills the fields an accepted form left out with the
// defaults its requested schema gives (SEP-1034).
func withDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return content
	}
	for name, prop := range s.Properties {
		if len(prop.Default) == 0 {
			continue
		}
		if _, ok := content[name]; ok {
			continue
		}
		var v any
		if json.Unmarshal(prop.Default, &v) != nil {
			continue
		}
		if content == nil {
			content = map[string]any{}
		}
		content[name] = v
	}
	return content
}
