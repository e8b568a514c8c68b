package task

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/mcp"
)

// Table holds tasks until their TTL runs out; then it drops and stops
// them. The zero Table is empty and ready to use.
type Table struct {
	mu sync.Mutex
	m  map[string]*Task
}

// Add holds t for its TTL.
func (tt *Table) Add(t *Task) {
	tt.mu.Lock()
	if tt.m == nil {
		tt.m = map[string]*Task{}
	}
	tt.m[t.ID] = t
	tt.mu.Unlock()
	time.AfterFunc(t.ttl, func() {
		tt.mu.Lock()
		delete(tt.m, t.ID)
		tt.mu.Unlock()
		t.Stop()
	})
}

// Get returns the task id of principal, or nil: another principal's task
// is as unknown as one that never was.
func (tt *Table) Get(id, principal string) *Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if t := tt.m[id]; t != nil && t.Principal == principal {
		return t
	}
	return nil
}

// All returns every task held, in no order.
func (tt *Table) All() []*Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return slices.Collect(maps.Values(tt.m))
}

// Serve answers tasks/get, tasks/update (delivering responses) or
// tasks/cancel for principal's task id, with the result to send or the
// refusal of an unknown task.
func (tt *Table) Serve(method, id, principal string, responses map[string]json.RawMessage) (any, *refusal.Error) {
	t := tt.Get(id, principal)
	if t == nil {
		return nil, refusal.UnknownTask(id)
	}
	switch method {
	case mcp.MethodTasksUpdate:
		t.Answer(responses)
	case mcp.MethodTasksCancel:
		t.Stop()
	default:
		return t.View(true), nil
	}
	return &mcp.ResultBase{}, nil
}
