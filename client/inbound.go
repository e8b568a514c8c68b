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
// on whose stream they came (ctx), or else the client's.
func (c *Client) receive(ctx context.Context, m *jsonrpc.Message) {
	switch {
	case m.Method == "":
		return // a response nobody waits for any more
	case m.ID.IsZero():
		c.notified(m)
	default:
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			c.respond(ctx, m)
		}()
	}
}

func (c *Client) notified(m *jsonrpc.Message) {
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
		var p mcp.LoggingMessageParams
		if c.opts.OnLog != nil && json.Unmarshal(m.Params, &p) == nil {
			c.opts.OnLog(p)
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

// respond answers a session-era server request, in the context of the
// call that caused it when known: it keeps the call's values, and ends
// with the client.
func (c *Client) respond(ctx context.Context, m *jsonrpc.Message) {
	resp := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID}
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
