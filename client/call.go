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
	log      func(mcp.LoggingMessageParams)
	meta     map[string]any
	keepTask bool
	asTask   bool // the caller asks for a task where the tool allows one
	task     bool // the request is made a task (CallTool decides)
}

// WithProgress asks the server for progress notifications on this
// request and passes each to fn.
func WithProgress(fn func(mcp.ProgressParams)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// WithLog passes the log messages the server sends on this request's
// stream (Streamable HTTP) to fn instead of Options.OnLog: for a gateway
// that relays each call's logs to its own caller. Messages the transport
// cannot tie to a request go to OnLog.
func WithLog(fn func(mcp.LoggingMessageParams)) CallOption {
	return func(o *callOptions) { o.log = fn }
}

// callLogKey carries a call's WithLog function in its context, to the
// messages that arrive on its stream.
type callLogKey struct{}

// KeepTask returns a request's CreateTaskResult (an mcp.Task) to the
// caller instead of following the task to its end, for callers that
// persist task ids and drive them with GetTask, UpdateTask and
// CancelTask.
func KeepTask() CallOption {
	return func(o *callOptions) { o.keepTask = true }
}

// AsTask asks CallTool to run a tool whose execution.taskSupport is
// "optional" as a task, and follow the task to its end: for work that
// may outlast a connection. Tools that require a task get one without
// it; tools that allow none are called plainly.
func AsTask() CallOption {
	return func(o *callOptions) { o.asTask = true }
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
	if o != nil && o.task {
		if c.Stateless() {
			// A task is asked for by declaring the tasks extension.
			meta[mcp.MetaClientCapabilities] = c.capabilities(true)
		} else {
			p["task"] = json.RawMessage("{}")
		}
	}
	if o != nil {
		maps.Copy(meta, o.meta)
		if o.log != nil {
			ctx = context.WithValue(ctx, callLogKey{}, o.log)
		}
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
		if c.Stateless() && json.Unmarshal(raw, &ir) == nil && ir.ResultType == mcp.ResultInputRequired {
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
		follow := o == nil || !o.keepTask
		switch {
		case !follow:
		case c.Stateless() && (c.opts.Tasks || o != nil && o.task) && ir.ResultType == mcp.ResultTask && !isTaskMethod(method):
			if raw, err = c.awaitTask(ctx, method, raw); err != nil {
				return err
			}
		case !c.Stateless() && o != nil && o.task:
			if raw, err = c.awaitSessionTask(ctx, method, raw); err != nil {
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
// with a version from the server's list; a session-era request refused
// because the server ended the session is sent again, once, in a new one.
// A request the caller gives up on is cancelled at the server: by
// closing its stream on 2026-07-28 Streamable HTTP, with
// notifications/cancelled everywhere else.
func (c *Client) roundTrip(ctx context.Context, method string, p map[string]json.RawMessage, meta map[string]any) (json.RawMessage, error) {
	renewed := false
	for attempt := 0; ; attempt++ {
		stateless := c.Stateless()
		version := c.Version()
		m := maps.Clone(meta)
		if stateless {
			m[mcp.MetaProtocolVersion] = version
			m[mcp.MetaClientInfo] = c.opts.Info
			if _, ok := m[mcp.MetaClientCapabilities]; !ok {
				// A task's own requests declare the extension that made
				// it, whether the client declares it for everything or
				// not.
				m[mcp.MetaClientCapabilities] = c.capabilities(c.opts.Tasks || isTaskMethod(method))
			}
			if c.opts.LogLevel != "" {
				m[mcp.MetaLogLevel] = c.opts.LogLevel
			}
		}
		body := maps.Clone(p)
		if len(m) > 0 || stateless {
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
		if err := c.afterCancels(ctx); err != nil {
			return nil, fmt.Errorf("mcp client: %s: %w", method, err)
		}
		session := c.session.Load()
		resp, err := c.conn.call(ctx, out)
		if err != nil && ctx.Err() != nil {
			if method != mcp.MethodInitialize && (!stateless || !closesToCancel(c.conn)) {
				c.cancelled(id, ctx.Err())
			}
			return nil, fmt.Errorf("mcp client: %s: %w", method, err)
		}
		if err == nil && resp.Error != nil {
			err = resp.Error
		}
		if err != nil {
			var rpcErr *jsonrpc.Error
			if stateless && attempt == 0 && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeUnsupportedVersion {
				if v := c.retryVersion(supportedOf(rpcErr)); v != "" {
					c.setVersion(v)
					continue
				}
			}
			if !stateless && !renewed && method != mcp.MethodInitialize && sessionEnded(err) {
				renewed = true
				if rerr := c.renew(ctx, session); rerr != nil {
					return nil, fmt.Errorf("mcp client: %s: %w; starting a new session: %w", method, err, rerr)
				}
				continue
			}
			return nil, fmt.Errorf("mcp client: %s: %w", method, err)
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

// cancelled tells the server that the client gave up on id, in the
// background: the caller whose context ended returns at once, even to a
// server that has stopped reading. The requests sent after it wait for
// it (afterCancels), so that the server hears of the cancellation first.
func (c *Client) cancelled(id jsonrpc.ID, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	before, done := c.cancels, make(chan struct{})
	c.cancels = done
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		if before != nil {
			select {
			case <-before:
			case <-ctx.Done():
				return
			}
		}
		_ = c.notify(ctx, mcp.NotificationCancelled, mcp.CancelledParams{RequestID: json.RawMessage(id), Reason: why.Error()})
	}()
}

// afterCancels waits until the notifications/cancelled sent so far have
// been written (or given up), or until ctx ends.
func (c *Client) afterCancels(ctx context.Context) error {
	c.mu.Lock()
	pending := c.cancels
	c.mu.Unlock()
	if pending == nil {
		return nil
	}
	select {
	case <-pending:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
	h := messageHeader(c.Version(), method, params)
	if method == mcp.MethodToolsCall && c.Stateless() {
		var name string
		_ = json.Unmarshal(params["name"], &name)
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
