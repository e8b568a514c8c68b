// Package task keeps the tasks of the MCP tasks extension (SEP-2663): a
// task-augmented tool call that runs on after its request answered, which
// the client polls with tasks/get, answers with tasks/update and ends with
// tasks/cancel.
//
// A Task is a small state machine: working, input_required while its work
// waits for an answer, then completed, failed or cancelled, after which it
// does not change. A Table holds tasks until their TTL runs out. The
// package knows nothing of HTTP or of the router: the caller runs the work
// and reports its outcome with Finish.
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

// Task is one task-augmented tool call.
type Task struct {
	ID        string // random, unguessable
	Principal string // only its creator may see it
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

// New returns a working task of principal that stays readable for ttl.
// cancel stops its work; Stop calls it.
func New(principal string, ttl time.Duration, cancel context.CancelFunc) *Task {
	now := time.Now()
	return &Task{ID: newID(), Principal: principal, created: now, updated: now, ttl: ttl, cancel: cancel,
		status: Working, inputs: map[string]mcp.InputRequest{}, waiters: map[string]chan json.RawMessage{}}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// View returns the task as it is now. Without detail it is the answer to
// the call that created the task (resultType "task"); with detail it is
// the answer to tasks/get, carrying the open questions, the result or the
// error.
func (t *Task) View(detailed bool) *mcp.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := &mcp.Task{TaskID: t.ID, Status: t.status, CreatedAt: t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano), PollIntervalMs: PollInterval.Milliseconds()}
	ttl := t.ttl.Milliseconds()
	v.TTLMs = &ttl
	v.ResultType = "task"
	if detailed {
		v.ResultType = mcp.ResultComplete
		switch t.status {
		case InputRequired:
			v.InputRequests = make(map[string]mcp.InputRequest, len(t.inputs))
			for k, in := range t.inputs {
				v.InputRequests[k] = in
			}
		case Completed:
			v.Result = t.result
		case Failed:
			v.Error = t.err
		}
	}
	return v
}

// Finish records the work's outcome: completed with result, or failed
// with err. A task that already ended keeps its status.
func (t *Task) Finish(result json.RawMessage, err *jsonrpc.Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if Terminal(t.status) {
		return
	}
	t.result, t.err, t.inputs, t.updated = result, err, nil, time.Now()
	t.status = Completed
	if err != nil {
		t.status = Failed
	}
}

// Ask puts a question to the client through the task (status
// input_required, the request under key) and waits until Answer brings a
// reply that decodes into result and satisfies valid. A reply of the
// wrong shape is no answer: the question is asked again. It returns
// ctx's error when ctx ends first.
func (t *Task) Ask(ctx context.Context, key, method string, params, result any, valid func() bool) error {
	ch := make(chan json.RawMessage, 1)
	set := func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.inputs[key] = mcp.InputRequest{Method: method, Params: params}
		t.waiters[key] = ch
		t.status, t.updated = InputRequired, time.Now()
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
			t.mu.Lock()
			delete(t.inputs, key)
			delete(t.waiters, key)
			t.mu.Unlock()
			return ctx.Err()
		}
	}
}

// Answer delivers the replies of tasks/update to the questions waiting
// for them; unknown or already answered keys are ignored. With no question
// left open the task is working again.
func (t *Task) Answer(responses map[string]json.RawMessage) {
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
	if t.status == InputRequired && len(t.inputs) == 0 {
		t.status, t.updated = Working, time.Now()
	}
}

// Stop cancels the work and, unless the task already ended, marks it
// cancelled.
func (t *Task) Stop() {
	t.cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !Terminal(t.status) {
		t.status, t.updated, t.inputs = Cancelled, time.Now(), nil
	}
}
