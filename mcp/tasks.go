package mcp

// Task is a task on the wire of revision 2025-11-25: the result of
// tasks/get and tasks/cancel, an entry of tasks/list, the params of
// notifications/tasks/status.
type Task struct {
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
	Task *Task `json:"task"`
}

// ListTasksResult answers tasks/list.
type ListTasksResult struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// TaskParams is the task member of a task-augmented request's params.
type TaskParams struct {
	TTL int64 `json:"ttl,omitempty"` // milliseconds; 0: the server's default
}

// MetaRelatedTask is the _meta key that ties a message to its task.
const MetaRelatedTask = "io.modelcontextprotocol/related-task"
