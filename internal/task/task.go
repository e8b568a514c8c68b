// Package task keeps the tasks of MCP: a task-augmented tool call that
// runs on after its request answered, which the client polls (tasks/get),
// answers (tasks/update, or the server requests of a session), waits for
// (tasks/result) and ends (tasks/cancel). Both wires are served: the
// tasks extension of 2026-07-28 (SEP-2663) and the tasks of revision
// 2025-11-25.
//
// A Task is a small state machine on the node that runs its work:
// working, input_required while the work waits for an answer, then
// completed, failed or cancelled, after which it does not change. Every
// change is written to the backplane, so that any node answers for the
// task, and a cancellation or an answer that reaches another node is sent
// on to the one running the work. The package knows nothing of HTTP or of
// the router: the caller runs the work and reports its outcome with
// Finish.
package task

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"sync"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Statuses, as the wire spells them.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// PollInterval is how often clients are asked to poll tasks/get.
const PollInterval = 200 * time.Millisecond

// Terminal reports whether status is final: completed, failed or cancelled.
func Terminal(status string) bool {
	return status == Completed || status == Failed || status == Cancelled
}

// State is a task as every node sees it: what the backplane holds.
type State struct {
	ID      string                      `json:"id"`
	Status  string                      `json:"status"`
	Message string                      `json:"message,omitempty"`
	Created time.Time                   `json:"created"`
	Updated time.Time                   `json:"updated"`
	TTL     time.Duration               `json:"ttl"`
	Result  json.RawMessage             `json:"result,omitempty"`
	Error   *jsonrpc.Error              `json:"error,omitempty"`
	Inputs  map[string]mcp.InputRequest `json:"inputs,omitempty"`
}

// Task is one task whose work runs on this node.
type Task struct {
	ID      string
	Owner   string // only its owner may see it
	cancel  context.CancelFunc
	changed func(*Task) // after every change, outside mu
	done    chan struct{}

	mu      sync.Mutex
	st      State
	waiters map[string]chan json.RawMessage
}

// New returns a working task of owner that stays readable for ttl.
// cancel stops its work; Stop calls it.
func New(owner string, ttl time.Duration, cancel context.CancelFunc) *Task {
	now := time.Now()
	id := newID()
	return &Task{ID: id, Owner: owner, cancel: cancel, done: make(chan struct{}), changed: func(*Task) {},
		st:      State{ID: id, Status: Working, Created: now, Updated: now, TTL: ttl, Inputs: map[string]mcp.InputRequest{}},
		waiters: map[string]chan json.RawMessage{}}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// State returns a copy of the task as it is now.
func (t *Task) State() *State {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.st
	if len(s.Inputs) > 0 {
		s.Inputs = make(map[string]mcp.InputRequest, len(t.st.Inputs))
		for k, in := range t.st.Inputs {
			s.Inputs[k] = in
		}
	}
	return &s
}

// Done is closed when the task reaches a terminal status.
func (t *Task) Done() <-chan struct{} { return t.done }

// change applies f to the state unless the task ended, and reports the
// change. f returns false to leave the task as it is.
func (t *Task) change(f func(s *State) bool) {
	t.mu.Lock()
	if Terminal(t.st.Status) || !f(&t.st) {
		t.mu.Unlock()
		return
	}
	t.st.Updated = time.Now()
	final := Terminal(t.st.Status)
	if final {
		t.st.Inputs = nil
	}
	t.mu.Unlock()
	t.changed(t)
	if final {
		close(t.done)
	}
}

// Finish records the work's outcome: completed with result, or failed
// with err, or, with failed, a result that reports a failure (a tool's
// isError). A task that already ended keeps its status.
func (t *Task) Finish(result json.RawMessage, err *jsonrpc.Error, failed bool) {
	t.change(func(s *State) bool {
		s.Result, s.Error, s.Status = result, err, Completed
		if err != nil || failed {
			s.Status = Failed
		}
		return true
	})
}

// Ask puts a question to the client through the task (status
// input_required, the request under key) and waits until Answer brings a
// reply that decodes into result and satisfies valid. A reply of the
// wrong shape is no answer: the question is asked again. It returns
// ctx's error when ctx ends first.
func (t *Task) Ask(ctx context.Context, key, method string, params, result any, valid func() bool) error {
	ch := make(chan json.RawMessage, 1)
	set := func() {
		t.change(func(s *State) bool {
			s.Inputs[key] = mcp.InputRequest{Method: method, Params: params}
			s.Status = InputRequired
			t.waiters[key] = ch
			return true
		})
	}
	set()
	for {
		select {
		case raw := <-ch:
			if json.Unmarshal(raw, result) == nil && valid() {
				return nil
			}
			set()
		case <-ctx.Done():
			t.change(func(s *State) bool {
				delete(s.Inputs, key)
				delete(t.waiters, key)
				return t.resume(s)
			})
			return ctx.Err()
		}
	}
}

// resume makes a task whose questions were all answered working again.
func (t *Task) resume(s *State) bool {
	if s.Status != InputRequired || len(s.Inputs) > 0 {
		return false
	}
	s.Status = Working
	return true
}

// Waiting marks the task input_required while its work waits for the
// client to answer a server request of a session; the returned func ends
// the wait.
func (t *Task) Waiting() (end func()) {
	t.change(func(s *State) bool { s.Status = InputRequired; return true })
	return func() { t.change(t.resume) }
}

// Answer delivers the replies of tasks/update to the questions waiting
// for them; unknown or already answered keys are ignored. With no question
// left open the task is working again.
func (t *Task) Answer(responses map[string]json.RawMessage) {
	t.change(func(s *State) bool {
		for k, v := range responses {
			ch, ok := t.waiters[k]
			if !ok {
				continue
			}
			delete(t.waiters, k)
			delete(s.Inputs, k)
			ch <- v
		}
		return t.resume(s)
	})
}

// Stop marks the task cancelled, unless it already ended, and then
// cancels the work: in that order, so that work ending on its
// cancellation cannot record itself failed first.
func (t *Task) Stop() {
	t.change(func(s *State) bool { s.Status, s.Message = Cancelled, "The task was cancelled."; return true })
	t.cancel()
}
