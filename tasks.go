package specter

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool may run as a task.
type TaskSupport uint8

// Task support levels.
const (
	// TaskNone: the tool always answers within its request (default).
	TaskNone TaskSupport = iota
	// TaskOptional: when the client declared the tasks extension, work a
	// handler starts with Context.Async becomes a task the client polls.
	TaskOptional
	// TaskRequired: the tool needs the tasks extension; calls without it
	// fail with -32021.
	TaskRequired
)

// Tasks sets a tool's task support. A task is what NoReply with Async
// work becomes on the 2026-07-28 wire when the request declares the tasks
// extension: the client gets a task id at once and polls tasks/get; input
// the work asks for (Elicit, Sample, ListRoots) is requested through the
// task and answered with tasks/update.
func Tasks(support TaskSupport) DeclOption {
	return declOption(func(d *declaration) { d.tasks = support })
}

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// task is one task-augmented tool call.
type task struct {
	id        string
	principal string
	created   time.Time
	ttl       time.Duration
	cancel    context.CancelFunc

	mu      sync.Mutex
	status  string
	updated time.Time
	result  json.RawMessage
	err     *jsonrpc.Error
	inputs  map[string]mcp.InputRequest
	waiters map[string]chan json.RawMessage
}

// taskView is a task on the wire: CreateTaskResult and the result of
// tasks/get.
type taskView struct {
	TaskID         string                      `json:"taskId"`
	Status         string                      `json:"status"`
	CreatedAt      string                      `json:"createdAt"`
	LastUpdatedAt  string                      `json:"lastUpdatedAt"`
	PollIntervalMs int64                       `json:"pollIntervalMs"`
	InputRequests  map[string]mcp.InputRequest `json:"inputRequests,omitempty"`
	Result         json.RawMessage             `json:"result,omitempty"`
	Error          *jsonrpc.Error              `json:"error,omitempty"`
	mcp.ResultBase
}

// pollInterval is how often clients are asked to poll tasks/get.
const pollInterval = 200 * time.Millisecond

func (t *task) view(detailed bool) *taskView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := &taskView{TaskID: t.id, Status: t.status, CreatedAt: t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano), PollIntervalMs: pollInterval.Milliseconds()}
	ttl := t.ttl.Milliseconds()
	v.TTLMs = &ttl
	v.ResultType = "task"
	if detailed {
		v.ResultType = mcp.ResultComplete
		switch t.status {
		case taskInputRequired:
			v.InputRequests = make(map[string]mcp.InputRequest, len(t.inputs))
			for k, in := range t.inputs {
				v.InputRequests[k] = in
			}
		case taskCompleted:
			v.Result = t.result
		case taskFailed:
			v.Error = t.err
		}
	}
	return v
}

func terminal(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

// finish records the work's outcome, unless the task already ended.
func (t *task) finish(result json.RawMessage, err *jsonrpc.Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if terminal(t.status) {
		return
	}
	t.result, t.err, t.inputs, t.updated = result, err, nil, time.Now()
	t.status = taskCompleted
	if err != nil {
		t.status = taskFailed
	}
}

// ask puts a question to the client through the task and waits for its
// answer from tasks/update.
func (t *task) ask(ctx context.Context, key, method string, params, result any, valid func() bool) error {
	ch := make(chan json.RawMessage, 1)
	set := func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.inputs[key] = mcp.InputRequest{Method: method, Params: params}
		t.waiters[key] = ch
		t.status, t.updated = taskInputRequired, time.Now()
	}
	set()
	for {
		select {
		case raw := <-ch:
			if json.Unmarshal(raw, result) == nil && valid() {
				return nil
			}
			set() // an answer of the wrong shape is no answer: ask again
		case <-ctx.Done():
			t.mu.Lock()
			delete(t.inputs, key)
			delete(t.waiters, key)
			t.mu.Unlock()
			return ctx.Err()
		}
	}
}

// answer delivers tasks/update responses to the questions waiting for
// them; unknown or already answered keys are ignored.
func (t *task) answer(responses map[string]json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range responses {
		ch, ok := t.waiters[k]
		if !ok {
			continue
		}
		delete(t.waiters, k)
		delete(t.inputs, k)
		ch <- v
	}
	if t.status == taskInputRequired && len(t.inputs) == 0 {
		t.status, t.updated = taskWorking, time.Now()
	}
}

func (t *task) stop() {
	t.cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !terminal(t.status) {
		t.status, t.updated, t.inputs = taskCancelled, time.Now(), nil
	}
}

// taskTable holds a router's tasks until their TTL runs out.
type taskTable struct {
	mu sync.Mutex
	m  map[string]*task
}

func (tt *taskTable) add(t *task) {
	tt.mu.Lock()
	tt.m[t.id] = t
	tt.mu.Unlock()
	time.AfterFunc(t.ttl, func() {
		tt.mu.Lock()
		delete(tt.m, t.id)
		tt.mu.Unlock()
		t.stop()
	})
}

func (tt *taskTable) get(id, principal string) *task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if t := tt.m[id]; t != nil && t.principal == principal {
		return t
	}
	return nil
}

func (tt *taskTable) all() []*task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return slices.Collect(maps.Values(tt.m))
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// tasksDeclared reports whether this request declared the tasks extension.
func (x *exchange) tasksDeclared() bool {
	_, ok := x.c.req.ClientCapabilities.Extensions[TasksExtension]
	return ok && x.modern()
}

func missingTasks() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMissingCapability, "Missing required client capability: the %s extension", TasksExtension).
		WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: struct{}{}}}})
}

// startTask runs Async work as a task and answers with the task's id.
func (x *exchange) startTask(d *declaration, work func(*Stream) Result) handlers.Reply {
	ctx, cancel := context.WithCancel(context.WithoutCancel(x.c.ctx))
	now := time.Now()
	t := &task{id: newTaskID(), principal: x.c.scope.principal, created: now, updated: now, ttl: x.r.cfg.taskTTL,
		cancel: cancel, status: taskWorking, inputs: map[string]mcp.InputRequest{}, waiters: map[string]chan json.RawMessage{}}
	x.r.tasks.add(t) // pollable before the answer leaves
	c := *x.c
	c.ctx = ctx
	c.stream = &Stream{ctx: ctx, ob: x.ob, req: x.c.req, task: t}
	x.r.work.Add(1)
	go func() {
		defer x.r.work.Done()
		defer cancel()
		res := safely(func() Result { return work(c.stream) })
		tx := *x
		tx.c = &c
		t.finish(tx.outcome(tx.finish(d, res)))
	}()
	return handlers.Result(t.view(false))
}

// isTaskMethod reports the methods of the tasks extension.
func isTaskMethod(method string) bool {
	return method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel"
}

// serveTaskMethod answers tasks/get, tasks/update and tasks/cancel.
func (r *Router) serveTaskMethod(w http.ResponseWriter, c *Context, m *jsonrpc.Message, call *modern.Call, p *modernParams) {
	reply := func(v any) {
		x := &exchange{r: r, c: &Context{scope: c.scope, req: &Request{Method: m.Method, modern: call}}}
		x.decorate(v)
		body, _ := json.Marshal(v)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
	}
	if _, ok := call.Meta.ClientCapabilities.Extensions[TasksExtension]; !ok {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, missingTasks())
		return
	}
	t := r.tasks.get(p.TaskID, c.scope.principal)
	if t == nil {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown taskId %q", p.TaskID))
		return
	}
	switch m.Method {
	case "tasks/get":
		reply(t.view(true))
	case "tasks/update":
		t.answer(p.InputResponses)
		reply(&mcp.ResultBase{})
	case "tasks/cancel":
		t.stop()
		reply(&mcp.ResultBase{})
	}
}
