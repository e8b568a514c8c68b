package client

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Bounds of the tasks the client runs for a server.
const (
	// maxServerTasks bounds the tasks held at once, running or ended.
	maxServerTasks = 32
	// defaultTaskTTL is how long an ended task is kept when the server
	// asked for no TTL; maxTaskTTL bounds the TTL a server asks for.
	defaultTaskTTL = 10 * time.Minute
	maxTaskTTL     = time.Hour
	// taskPollInterval is the polling interval the client suggests.
	taskPollInterval = 500 * time.Millisecond
)

// serverTask is a sampling or elicitation request the client runs as a
// task for the server (revision 2025-11-25). Its fields after id are
// guarded by Client.mu.
type serverTask struct {
	id      string
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc
	done    chan struct{} // closed when the task ends

	status  string
	updated time.Time
	result  json.RawMessage // once completed
	err     *jsonrpc.Error  // once failed or cancelled
}

// sessionTasks is the tasks capability the client declares in a
// session: the requests it runs as tasks, and tasks/list and tasks/cancel.
func (c *Client) sessionTasks() json.RawMessage {
	requests := map[string]any{}
	if c.opts.Sampling != nil {
		requests["sampling"] = map[string]any{"createMessage": struct{}{}}
	}
	if c.opts.Elicitation != nil {
		requests["elicitation"] = map[string]any{"create": struct{}{}}
	}
	if len(requests) == 0 {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"list": struct{}{}, "cancel": struct{}{}, "requests": requests})
	return b
}

// serveTask answers what a session-era server asks of the client's tasks
// when Options.Tasks declared them: a sampling or elicitation request
// augmented with a task becomes one, and tasks/get, tasks/result,
// tasks/list and tasks/cancel serve them. It returns nil and nil for any
// other request.
func (c *Client) serveTask(m *jsonrpc.Message) (any, error) {
	if !c.opts.Tasks || c.Stateless() {
		return nil, nil
	}
	switch m.Method {
	case mcp.MethodSample, mcp.MethodElicit:
		var p struct {
			Task *mcp.TaskMetadata `json:"task"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Task == nil {
			return nil, nil
		}
		return c.startTask(m.Method, m.Params, time.Duration(p.Task.TTL)*time.Millisecond)
	case mcp.MethodTasksList:
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sweepTasks()
		tasks := slices.SortedFunc(maps.Values(c.running), func(a, b *serverTask) int { return a.created.Compare(b.created) })
		out := mcp.ListTasksResult{Tasks: make([]mcp.SessionTask, len(tasks))}
		for i, t := range tasks {
			out.Tasks[i] = t.view()
		}
		return out, nil
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel:
	default:
		return nil, nil
	}
	var p mcp.TaskParams
	_ = json.Unmarshal(m.Params, &p)
	c.mu.Lock()
	t := c.running[p.TaskID]
	c.mu.Unlock()
	if t == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: no task %q", m.Method, p.TaskID)
	}
	switch m.Method {
	case mcp.MethodTasksGet:
		c.mu.Lock()
		defer c.mu.Unlock()
		return t.view(), nil
	case mcp.MethodTasksCancel:
		c.mu.Lock()
		defer c.mu.Unlock()
		if t.status != mcp.TaskWorking {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "tasks/cancel: task %s has ended (%s)", t.id, t.status)
		}
		t.cancel()
		t.end(mcp.TaskCancelled, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the task was cancelled"))
		return t.view(), nil
	}
	// tasks/result waits for the end.
	select {
	case <-t.done:
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.err != nil {
		return nil, t.err
	}
	return relatedTo(t.result, t.id), nil
}

// startTask runs a server request as a task and answers with the task.
// At most MaxServerRequests tasks run at once, apart from the requests
// being answered (so that a server can still poll the ones that run);
// as many more are refused with -32000.
func (c *Client) startTask(method string, params json.RawMessage, ttl time.Duration) (any, error) {
	if ttl <= 0 {
		ttl = defaultTaskTTL
	}
	ttl = min(ttl, maxTaskTTL)
	var id [16]byte
	_, _ = rand.Read(id[:])
	ctx, cancel := context.WithCancel(c.ctx)
	now := time.Now()
	t := &serverTask{id: hex.EncodeToString(id[:]), created: now, updated: now, ttl: ttl, cancel: cancel, done: make(chan struct{}), status: mcp.TaskWorking}
	select {
	case c.tasking <- struct{}{}:
	default:
		cancel()
		return nil, jsonrpc.Errorf(codeBusy, "%s: the client is busy: %d tasks of the server are running", method, cap(c.tasking))
	}
	c.mu.Lock()
	c.sweepTasks()
	if c.closed || len(c.running) >= maxServerTasks {
		c.mu.Unlock()
		<-c.tasking
		cancel()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s: the client holds %d tasks already", method, maxServerTasks)
	}
	c.running[t.id] = t
	// The request being answered holds the group: the count is not zero.
	c.wg.Add(1)
	created := mcp.CreateTaskResult{Task: new(t.view())}
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() { <-c.tasking }()
		defer cancel()
		res, err := c.answer(ctx, method, params)
		var raw json.RawMessage
		if err == nil {
			raw, err = json.Marshal(res)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			t.end(mcp.TaskFailed, nil, rpcError(err))
		} else {
			t.end(mcp.TaskCompleted, raw, nil)
		}
	}()
	return created, nil
}

// end moves a working task to its final status; a task that ended before
// (cancelled) keeps its status. Called with Client.mu held.
func (t *serverTask) end(status string, result json.RawMessage, err *jsonrpc.Error) {
	if t.status != mcp.TaskWorking {
		return
	}
	t.status, t.result, t.err, t.updated = status, result, err, time.Now()
	close(t.done)
}

// view is the task on the wire. Called with Client.mu held.
func (t *serverTask) view() mcp.SessionTask {
	v := mcp.SessionTask{
		TaskID:        t.id,
		Status:        t.status,
		CreatedAt:     t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTL:           t.ttl.Milliseconds(),
		PollInterval:  taskPollInterval.Milliseconds(),
	}
	if t.err != nil {
		v.StatusMessage = t.err.Message
	}
	return v
}

// sweepTasks forgets the ended tasks whose TTL has passed. Called with
// Client.mu held.
func (c *Client) sweepTasks() {
	now := time.Now()
	for id, t := range c.running {
		if t.status != mcp.TaskWorking && now.After(t.created.Add(t.ttl)) {
			delete(c.running, id)
		}
	}
}

// relatedTo adds the related-task entry to a result's _meta, which every
// result tied to a task carries.
func relatedTo(result json.RawMessage, id string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil || obj == nil {
		return result
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(obj["_meta"], &meta)
	meta[mcp.MetaRelatedTask], _ = json.Marshal(map[string]string{"taskId": id})
	obj["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(obj)
	if err != nil {
		return result
	}
	return out
}

// rpcError is err as the JSON-RPC error a request is answered with.
func rpcError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s", cmp.Or(err.Error(), "failed"))
}
