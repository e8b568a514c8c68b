package task

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/specter-mcp/specter/internal/lease"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Support levels of a tool, as execution.taskSupport spells them.
const (
	Optional = "optional"
	Required = "required"
)

// Refusal returns the error for a call of tool, whose task support is
// support ("", Optional or Required), that does not fit whether the
// request asks for a task (asked): on the 2026-07-28 wire (stateless) a
// Required tool needs the extension (-32021); in a session a Required
// tool needs a task-augmented call and any other refuses one (-32601), as
// revision 2025-11-25 says. nil when the call fits.
func Refusal(tool, support string, stateless, asked bool) *jsonrpc.Error {
	switch {
	case stateless && support == Required && !asked:
		return jsonrpc.Errorf(jsonrpc.CodeMissingCapability, "Missing required client capability: the %s extension", mcp.ExtensionTasks).
			WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: struct{}{}}}})
	case !stateless && support == Required && !asked:
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q runs only as a task; call it with a task member", tool)
	case !stateless && support == "" && asked:
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q does not run as a task; call it without a task member", tool)
	}
	return nil
}

// Capability is the tasks capability of a server whose tools may run as
// tasks (revision 2025-11-25).
var Capability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// Run is a task's work: it runs under ctx, which ends when the task is
// cancelled or its TTL runs out, and returns the task's result or error
// as its request would have had them.
type Run func(ctx context.Context, t *Task) (json.RawMessage, *jsonrpc.Error)

// Start starts run as a new task of owner, readable for ttl, on its own
// goroutine counted in work, holds it (see Add) and returns it as it was
// created. It counts against the Limits of holder. base bounds the work;
// notify, if not nil, gets notifications/tasks/status on every change,
// and then a result whose isError is set fails the task, as revision
// 2025-11-25 says.
func (tt *Table) Start(base context.Context, owner, holder string, ttl time.Duration, notify func([]byte), work *sync.WaitGroup, run Run) (*State, error) {
	ctx, cancel := context.WithCancel(base)
	t := New(owner, ttl, cancel)
	t.Holder = holder
	var changed func(*State)
	if notify != nil {
		changed = func(s *State) { notify(s.Notice()) }
	}
	if err := tt.Add(t, changed); err != nil {
		cancel()
		return nil, err
	}
	created := t.State()
	release := func() {}
	if tt.cfg.Hold != nil {
		release = tt.cfg.Hold(lease.Task(t.ID))
	}
	work.Add(1)
	go func() {
		defer work.Done()
		defer release()
		defer cancel()
		body, je := run(ctx, t)
		var r struct{ IsError bool }
		t.Finish(body, je, notify != nil && json.Unmarshal(body, &r) == nil && r.IsError)
	}()
	return created, nil
}

// Reply is the answer to the call that created the task: a
// CreateTaskResult in a session, else the task on the 2026-07-28 wire.
func (s *State) Reply(session bool) any {
	if session {
		return &mcp.CreateTaskResult{Task: s.Wire()}
	}
	return s.View(false)
}

// TTL returns the TTL of a new task: what the request's task member
// (raw, revision 2025-11-25) asks for, up to limit, or limit.
func TTL(raw json.RawMessage, limit time.Duration) time.Duration {
	var p mcp.TaskMetadata
	if json.Unmarshal(raw, &p) == nil && p.TTL > 0 {
		return min(limit, time.Duration(p.TTL)*time.Millisecond)
	}
	return limit
}

// Notice returns notifications/tasks/status for the task as s is.
func (s *State) Notice() []byte {
	p, _ := json.Marshal(s.Wire())
	return jsonrpc.AppendRequest(nil, nil, mcp.NotificationTaskStatus, p)
}

// Relate returns params, a JSON object, with a _meta that ties it to the
// task id, as a task's requests to the client must be.
func Relate(params []byte, id string) []byte {
	out := fmt.Appendf(nil, `{"_meta":{%q:{"taskId":%q}}`, mcp.MetaRelatedTask, id)
	if len(params) > 2 {
		out = append(out, ',')
	}
	return append(out, params[1:]...)
}

// Answer answers tasks/get, tasks/result and tasks/cancel of revision
// 2025-11-25 for owner's task id: the answer's result, or its error (a
// *jsonrpc.Error). tasks/result waits, under ctx, for the task to end. A
// cancel of a task that ended is refused.
func (tt *Table) Answer(ctx context.Context, method, id, owner string) (json.RawMessage, error) {
	var (
		s       *State
		refused *refusal.Error
		ended   bool
	)
	switch method {
	case mcp.MethodTasksCancel:
		if s, ended, refused = tt.Cancel(id, owner); ended {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: task %s already ended (%s)", id, s.Status)
		}
	case mcp.MethodTasksResult:
		if s, refused = tt.Wait(ctx, id, owner); refused == nil {
			body, je := s.Payload()
			if je != nil {
				return nil, je
			}
			return body, nil
		}
	default:
		s, refused = tt.Get(id, owner)
	}
	if refused != nil {
		return nil, refused.RPC
	}
	body, _ := json.Marshal(s.Wire())
	return body, nil
}

// ServeHTTP answers tasks/get, tasks/update and tasks/cancel (m, whose
// params are p) of the 2026-07-28 wire, for owner, who must have declared
// the extension. decorate adds what that wire puts on results.
func (tt *Table) ServeHTTP(w http.ResponseWriter, m *jsonrpc.Message, p *stateless.Params, owner string, declared bool, decorate func(any)) {
	if e := Refusal("", Required, true, declared); e != nil {
		refusal.Write(w, m.ID, refusal.BadRequest(e))
		return
	}
	v, refused := tt.Serve(m.Method, p.TaskID, owner, p.InputResponses)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	decorate(v)
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, body))
}

// Wires returns owner's tasks on the wire of revision 2025-11-25.
func (tt *Table) Wires(owner string) ([]*mcp.SessionTask, error) {
	list, refused := tt.List(owner)
	if refused != nil {
		return nil, refused.RPC
	}
	out := make([]*mcp.SessionTask, len(list))
	for i, s := range list {
		out[i] = s.Wire()
	}
	return out, nil
}
