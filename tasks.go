package specter

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/jsonrpc"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool may run as a task.
type TaskSupport uint8

// Task support levels.
const (
	// TaskNone: the tool always answers within its request (default).
	TaskNone TaskSupport = iota
	// TaskOptional: when the client declared the tasks extension, the work
	// of a NoReply becomes a task the client polls.
	TaskOptional
	// TaskRequired: the tool needs the tasks extension; calls without it
	// fail with -32021.
	TaskRequired
)

// Tasks sets a tool's task support. A task is what the work of a NoReply
// becomes on the 2026-07-28 wire when the request declares the tasks
// extension: the client gets a task id at once and polls tasks/get; input
// the work asks for (Elicit, Sample, ListRoots) is requested through the
// task and answered with tasks/update.
func Tasks(support TaskSupport) DeclOption {
	return declOption(func(d *declaration) { d.tasks = support })
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

// startTask runs NoReply's work as a task and answers with the task's id.
func (x *exchange) startTask(d *declaration, work func(*Stream) Result) handlers.Outcome {
	ctx, cancel := context.WithCancel(context.WithoutCancel(x.c.ctx))
	t := task.New(x.c.grant.principal, x.r.cfg.taskTTL, cancel)
	x.r.tasks.Add(t) // pollable before the answer leaves
	c := *x.c
	c.ctx = ctx
	c.stream = &Stream{ctx: ctx, ob: x.ob, req: x.c.req, task: t}
	x.r.work.Add(1)
	go func() {
		defer x.r.work.Done()
		defer cancel()
		res := x.work(work, c.stream)
		tx := *x
		tx.c = &c
		t.Finish(tx.outcome(tx.finish(d, res)))
	}()
	return handlers.Answer(t.View(false))
}

// serveTaskMethod answers tasks/get, tasks/update and tasks/cancel.
func (r *Router) serveTaskMethod(w http.ResponseWriter, c *Context, m *jsonrpc.Message, call *modern.Call, p *modern.Params) {
	if _, ok := call.Meta.ClientCapabilities.Extensions[TasksExtension]; !ok {
		refusal.Write(w, m.ID, refusal.BadRequest(missingTasks()))
		return
	}
	v, refused := r.tasks.Serve(m.Method, p.TaskID, c.grant.principal, p.InputResponses)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	x := &exchange{r: r, c: &Context{grant: c.grant, req: &Request{Method: m.Method, modern: call}}}
	x.decorate(v)
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
}
