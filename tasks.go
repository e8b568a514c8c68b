package specter

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/task"
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
	// TaskOptional: when the client asks for a task, the work of a
	// NoReply becomes a task the client polls.
	TaskOptional
	// TaskRequired: the tool runs only as a task; other calls fail (-32021
	// on the 2026-07-28 wire, -32601 in a session, as each revision says).
	TaskRequired
)

// Tasks sets a tool's task support. A task is what the work of a NoReply
// becomes when the client asks for one: on the 2026-07-28 wire by
// declaring the tasks extension, in a session of revision 2025-11-25 by
// a tools/call with a task member. The client gets a task id at once and
// polls it (tasks/get), on any node of the deployment; input the work
// asks for (Elicit, Sample, ListRoots) goes through the task.
func Tasks(support TaskSupport) DeclOption {
	return declOption(func(d *declaration) { d.tasks = support })
}

// tasksDeclared reports whether this request asks for a task.
func (x *exchange) tasksDeclared() bool {
	if !x.modern() {
		return x.c.req.task != nil && x.c.req.Version >= mcp.Version20251125
	}
	_, ok := x.c.req.ClientCapabilities.Extensions[TasksExtension]
	return ok
}

// taskRefusal refuses a call that needs a task and asks for none, or, in
// a session, asks for a task of a tool that cannot run as one.
func (x *exchange) taskRefusal(d *declaration) *jsonrpc.Error {
	switch {
	case x.modern() && d.tasks == TaskRequired && !x.tasksDeclared():
		return jsonrpc.Errorf(jsonrpc.CodeMissingCapability, "Missing required client capability: the %s extension", TasksExtension).
			WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: struct{}{}}}})
	case !x.modern() && d.tasks == TaskRequired && !x.tasksDeclared():
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q runs only as a task; call it with a task member", d.name)
	case !x.modern() && d.tasks == TaskNone && x.tasksDeclared():
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q does not run as a task; call it without a task member", d.name)
	}
	return nil
}

// owner is who may see the tasks this request creates: its principal on
// the 2026-07-28 wire, its session in the session era.
func (x *exchange) owner() string {
	if x.sess != nil {
		return "s:" + x.sess.ID()
	}
	return "p:" + x.c.grant.principal
}

// startTask runs a tool's work as a task and answers with the task.
func (x *exchange) startTask(d *declaration, res Result) handlers.Outcome {
	ttl := x.r.cfg.taskTTL
	var p mcp.TaskParams
	if json.Unmarshal(x.c.req.task, &p) == nil && p.TTL > 0 {
		ttl = min(ttl, time.Duration(p.TTL)*time.Millisecond)
	}
	base, sess := context.WithoutCancel(x.c.ctx), x.sess
	if sess != nil {
		base = sess.Context() // a session's tasks end with it
	}
	ctx, cancel := context.WithCancel(base)
	t := task.New(x.owner(), ttl, cancel)
	var changed func(*task.State)
	c := *x.c
	c.ctx = ctx
	c.stream = &Stream{ctx: ctx, ob: x.ob, req: x.c.req, task: t}
	if sess != nil {
		c.stream.ob, c.stream.sess, c.stream.timeout = sess.GetStream(), sess, x.r.cfg.stateTTL
		changed = func(s *task.State) {
			p, _ := json.Marshal(s.Wire())
			sess.Notify(jsonrpc.AppendRequest(nil, nil, mcp.NotificationTaskStatus, p))
		}
	}
	if err := x.r.tasks.Add(t, changed); err != nil {
		cancel()
		return handlers.Failed(x.internal(err))
	}
	x.r.work.Add(1)
	go func() {
		defer x.r.work.Done()
		defer cancel()
		if res.kind == resultNoReply {
			res = safely(func() Result { return res.work(c.stream) })
		}
		tx := *x
		tx.c = &c
		body, je := tx.outcome(tx.finish(d, res))
		var r struct{ IsError bool }
		t.Finish(body, je, sess != nil && json.Unmarshal(body, &r) == nil && r.IsError)
	}()
	if sess != nil {
		return handlers.Answer(&mcp.CreateTaskResult{Task: t.State().Wire()})
	}
	return handlers.Answer(t.State().View(false))
}

// Task answers tasks/get, tasks/result and tasks/cancel in a session.
func (x *exchange) Task(method, id string) handlers.Outcome {
	var (
		s       *task.State
		refused *refusal.Error
		ended   bool
	)
	switch method {
	case mcp.MethodTasksCancel:
		if s, ended, refused = x.r.tasks.Cancel(id, x.owner()); ended {
			return handlers.Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: task %s already ended (%s)", id, s.Status))
		}
	case mcp.MethodTasksResult:
		if s, refused = x.r.tasks.Get(id, x.owner()); refused == nil && !task.Terminal(s.Status) {
			go func() { // tasks/result waits for the end of the task
				s, refused := x.r.tasks.Wait(x.c.ctx, id, x.owner())
				x.respond(payload(s, refused), true)
			}()
			return handlers.Outcome{Pending: true}
		}
		return payload(s, refused)
	default:
		s, refused = x.r.tasks.Get(id, x.owner())
	}
	if refused != nil {
		return handlers.Failed(refused.RPC)
	}
	return handlers.Answer(s.Wire())
}

func payload(s *task.State, refused *refusal.Error) handlers.Outcome {
	if refused != nil {
		return handlers.Failed(refused.RPC)
	}
	body, je := s.Payload()
	if je != nil {
		return handlers.Failed(je)
	}
	return handlers.Answer(body)
}

// Tasks lists the tasks of the session (tasks/list).
func (x *exchange) Tasks() ([]*mcp.Task, error) {
	list, refused := x.r.tasks.List(x.owner())
	if refused != nil {
		return nil, refused.RPC
	}
	out := make([]*mcp.Task, len(list))
	for i, s := range list {
		out[i] = s.Wire()
	}
	return out, nil
}

// serveTaskMethod answers tasks/get, tasks/update and tasks/cancel on the
// 2026-07-28 wire.
func (r *Router) serveTaskMethod(w http.ResponseWriter, c *Context, m *jsonrpc.Message, call *modern.Call, p *modern.Params) {
	x := &exchange{r: r, c: &Context{grant: c.grant, req: newRequest(m, nil, call)}}
	if !x.tasksDeclared() {
		refusal.Write(w, m.ID, refusal.BadRequest(x.taskRefusal(&declaration{tasks: TaskRequired})))
		return
	}
	v, refused := r.tasks.Serve(m.Method, p.TaskID, x.owner(), p.InputResponses)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	x.decorate(v)
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
}
