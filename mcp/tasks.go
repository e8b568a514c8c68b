package mcp

import (
	"encoding/json"

	"github.com/specter-mcp/specter/jsonrpc"
)

// ExtensionTasks is the identifier of the tasks extension (SEP-2663),
// declared in the extensions of client and server capabilities.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTask is the resultType of a CreateTaskResult: the request became
// a task, to be polled with tasks/get.
const ResultTask = "task"

// Task statuses, as the wire spells them. Completed, failed and cancelled
// are terminal.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Task is a task of the tasks extension: the CreateTaskResult that stands
// for a request's result, and the result of tasks/get. A server sends its
// times and poll interval always.
type Task struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	PollIntervalMs int64  `json:"pollIntervalMs"`
	// InputRequests are the questions of an input_required task, answered
	// with tasks/update.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// Result is what the request would have returned, once completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is why a failed task failed.
	Error *jsonrpc.Error `json:"error,omitempty"`
	ResultBase
}

// Terminal reports whether the task has ended: completed, failed or
// cancelled.
func (t *Task) Terminal() bool {
	return t.Status == TaskCompleted || t.Status == TaskFailed || t.Status == TaskCancelled
}

// TaskParams are the params of tasks/get and tasks/cancel.
type TaskParams struct {
	TaskID string `json:"taskId"`
}

// UpdateTaskParams are the params of tasks/update: answers to the task's
// input requests, by key.
type UpdateTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// Tasks of revision 2025-11-25, served in sessions.
// SessionTask is a task on the wire of revision 2025-11-25 (the schema's
// Task): the result of tasks/get and tasks/cancel, an entry of tasks/list,
// the params of notifications/tasks/status.
type SessionTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// CreateTaskResult answers a task-augmented request (2025-11-25).
type CreateTaskResult struct {
	Task *SessionTask `json:"task"`
}

// ListTasksResult answers tasks/list.
type ListTasksResult struct {
	Tasks      []SessionTask `json:"tasks"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// TaskMetadata is the task member of a task-augmented request's params
// (2025-11-25).
type TaskMetadata struct {
	TTL int64 `json:"ttl,omitempty"` // milliseconds; 0: the server's default
}

// MetaRelatedTask is the _meta key that ties a message to its task.
const MetaRelatedTask = "io.modelcontextprotocol/related-task"
