package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// CallOption changes one request.
type CallOption func(*callOptions)

type callOptions struct {
	progress func(mcp.ProgressParams)
	meta     map[string]any
	keepTask bool
}

// WithProgress asks the server for progress notifications on this
// request and passes each to fn.
func WithProgress(fn func(mcp.ProgressParams)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// KeepTask returns a request's CreateTaskResult (an mcp.Task) to the
// caller instead of following the task to its end, for callers that
// persist task ids and drive them with GetTask, UpdateTask and
// CancelTask.
func KeepTask() CallOption {
	return func(o *callOptions) { o.keepTask = true }
}

// WithMeta adds entries to the request's _meta.
func WithMeta(meta map[string]any) CallOption {
	return func(o *callOptions) {
		if o.meta == nil {
			o.meta = map[string]any{}
		}
		maps.Copy(o.meta, meta)
	}
}

func collect(opts []CallOption) *callOptions {
	if len(opts) == 0 {
		return nil
	}
	o := &callOptions{}
	for _, f := range opts {
		f(o)
	}
	return o
}

// Call sends any request and decodes its result into result (nil to drop
// it). The client adds what its era needs: _meta and headers in
// 2026-07-28, where input_required rounds are answered by the client's
// handlers and the request retried until it completes. A JSON-RPC error
// comes back as a *jsonrpc.Error in the chain.
func (c *Client) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	return c.call(ctx, method, params, result, collect(opts))
}

func (c *Client) call(ctx context.Context, method string, params, result any, o *callOptions) error {
	p, err := object(params)
	if err != nil {
		return fmt.Errorf("mcp client: %s params: %w", method, err)
	}
	meta := map[string]any{}
	if raw, ok := p["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return fmt.Errorf("mcp client: %s _meta: %w", method, err)
		}
	}
	if o != nil {
		maps.Copy(meta, o.meta)
		if o.progress != nil {
			token := "progress-" + strconv.FormatInt(c.nextID.Add(1), 10)
			meta["progressToken"] = token
			key := strconv.Quote(token)
			c.mu.Lock()
			c.progress[key] = o.progress
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.progress, key)
				c.mu.Unlock()
			}()
		}
	}
	for round := 0; ; round++ {
		raw, err := c.roundTrip(ctx, method, p, meta)
		if err != nil {
			return err
		}
		var ir mcp.ResultBase
		if c.Modern() && json.Unmarshal(raw, &ir) == nil && ir.ResultType == mcp.ResultInputRequired {
			if round >= c.opts.MaxInputRounds {
				return fmt.Errorf("mcp client: %s: still input_required after %d rounds", method, round)
			}
			var rounds struct {
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
				RequestState  *string                    `json:"requestState"`
			}
			_ = json.Unmarshal(raw, &rounds)
			answers, err := c.answerAll(ctx, rounds.InputRequests)
			if err != nil {
				return fmt.Errorf("mcp client: %s: answering input requests: %w", method, err)
			}
			p["inputResponses"] = answers
			delete(p, "requestState")
			if rounds.RequestState != nil {
				p["requestState"], _ = json.Marshal(*rounds.RequestState)
			}
			continue
		}
		if c.Modern() && c.opts.Tasks && ir.ResultType == mcp.ResultTask && !isTaskMethod(method) && (o == nil || !o.keepTask) {
			if raw, err = c.awaitTask(ctx, method, raw); err != nil {
				return err
			}
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("mcp client: %s: decoding the result: %w", method, err)
		}
		return nil
	}
}

// roundTrip sends one request with a fresh id and returns its result. A
// 2026-07-28 request refused for its protocol version is sent again, once,
// with a version from the server's list.
func (c *Client) roundTrip(ctx context.Context, method string, p map[string]json.RawMessage, meta map[string]any) (json.RawMessage, error) {
	for attempt := 0; ; attempt++ {
		modern := c.Modern()
		version := c.Version()
		m := maps.Clone(meta)
		if modern {
			m[mcp.MetaProtocolVersion] = version
			m[mcp.MetaClientInfo] = c.opts.Info
			m[mcp.MetaClientCapabilities] = c.Capabilities()
			if c.opts.LogLevel != "" {
				m[mcp.MetaLogLevel] = c.opts.LogLevel
			}
		}
		body := maps.Clone(p)
		if len(m) > 0 || modern {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, fmt.Errorf("mcp client: %s _meta: %w", method, err)
			}
			body["_meta"] = b
		}
		params, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("mcp client: %s params: %w", method, err)
		}
		id := jsonrpc.IntID(c.nextID.Add(1))
		out := &outgoing{
			msg:    &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: params},
			header: c.header(method, body),
		}
		resp, err := c.conn.call(ctx, out)
		if err != nil {
			if ctx.Err() != nil && !modern && method != mcp.MethodInitialize {
				c.cancelled(id, ctx.Err())
			}
			return nil, fmt.Errorf("mcp client: %s: %w", method, err)
		}
		if resp.Error != nil {
			if modern && attempt == 0 && resp.Error.Code == jsonrpc.CodeUnsupportedVersion {
				if v := c.retryVersion(supportedOf(resp.Error)); v != "" {
					c.setVersion(v)
					continue
				}
			}
			return nil, fmt.Errorf("mcp client: %s: %w", method, resp.Error)
		}
		return resp.Result, nil
	}
}

// retryVersion picks the 2026-07-28 revision to retry with from the
// server's list: the pinned one, or the newest this client speaks.
func (c *Client) retryVersion(supported []string) string {
	want := c.opts.Version
	if want == "" {
		want = mcp.Version20260728
	}
	if slices.Contains(supported, want) {
		return want
	}
	return ""
}

// cancelled tells a session-era server that the client gave up on id, in
// the background: the caller whose context ended returns at once, even
// to a server that has stopped reading.
func (c *Client) cancelled(id jsonrpc.ID, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		_ = c.notify(ctx, mcp.NotificationCancelled, mcp.CancelledParams{RequestID: json.RawMessage(id), Reason: why.Error()})
	}()
}

func (c *Client) notify(ctx context.Context, method string, params any) error {
	msg := &jsonrpc.Message{JSONRPC: jsonrpc.Version, Method: method}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("mcp client: %s: %w", method, err)
		}
		msg.Params = b
	}
	if err := c.conn.send(ctx, &outgoing{msg: msg, header: c.header(method, nil)}); err != nil {
		return fmt.Errorf("mcp client: %s: %w", method, err)
	}
	return nil
}

// header returns the HTTP headers of a message: the protocol version
// once known, and in 2026-07-28 Mcp-Method, Mcp-Name and Mcp-Param-*.
func (c *Client) header(method string, params map[string]json.RawMessage) http.Header {
	h := http.Header{}
	if method == mcp.MethodInitialize {
		return h
	}
	h.Set("MCP-Protocol-Version", c.Version())
	if !c.Modern() {
		return h
	}
	h.Set("Mcp-Method", method)
	var name string
	switch method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet:
		_ = json.Unmarshal(params["name"], &name)
	case mcp.MethodResourcesRead:
		_ = json.Unmarshal(params["uri"], &name)
	case mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel:
		_ = json.Unmarshal(params["taskId"], &name)
	}
	if name != "" {
		h.Set("Mcp-Name", encodeHeaderValue(name))
	}
	if method == mcp.MethodToolsCall {
		c.mu.Lock()
		ph := c.headers[name]
		c.mu.Unlock()
		ph.apply(h, params["arguments"])
	}
	return h
}

// object turns params into a JSON object's members.
func object(params any) (map[string]json.RawMessage, error) {
	p := map[string]json.RawMessage{}
	if params == nil {
		return p, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return p, nil
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, errors.New("params must encode as a JSON object")
	}
	return p, nil
}

func isTaskMethod(method string) bool {
	return method == mcp.MethodTasksGet || method == mcp.MethodTasksUpdate || method == mcp.MethodTasksCancel
}
