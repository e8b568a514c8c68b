package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/specter-mcp/specter/mcp"
)

// Task support of a tool, as execution.taskSupport spells it.
const (
	taskRequired = "required"
	taskOptional = "optional"
)

// runsAsTask reports whether CallTool makes a task of a call of the tool
// name: the tool requires one, or allows one and the caller asked, and
// the server offers task-augmented calls.
func (c *Client) runsAsTask(name string, o *callOptions) bool {
	c.mu.Lock()
	support := c.taskSupport[name]
	c.mu.Unlock()
	if support != taskRequired && (support != taskOptional || o == nil || !o.asTask) {
		return false
	}
	caps := c.ServerCapabilities()
	if c.Stateless() {
		_, ok := caps.Extensions[mcp.ExtensionTasks]
		return ok
	}
	if c.Version() < mcp.Version20251125 || len(caps.Tasks) == 0 {
		return false
	}
	var t struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	return json.Unmarshal(caps.Tasks, &t) == nil && len(t.Requests.Tools.Call) > 0
}

// awaitSessionTask follows a task of revision 2025-11-25 that the server
// made of a request: tasks/get at the server's poll interval (never
// faster than minPoll) while the task works, then tasks/result, which the
// server holds until the task ends, sending the questions the task has
// for the client on the way (the client's handlers answer them). It returns what the request would
// have returned; when ctx ends first, the task is cancelled.
func (c *Client) awaitSessionTask(ctx context.Context, method string, created json.RawMessage) (json.RawMessage, error) {
	var cr mcp.CreateTaskResult
	if err := json.Unmarshal(created, &cr); err != nil || cr.Task == nil || cr.Task.TaskID == "" {
		return nil, fmt.Errorf("mcp client: %s: a task-augmented request answered without a task", method)
	}
	t := *cr.Task
	id := t.TaskID
	for t.Status == mcp.TaskWorking {
		if err := c.wait(ctx, pollInterval(t.PollInterval)); err != nil {
			return nil, c.abandon(id, fmt.Errorf("mcp client: %s: task %s: %w", method, id, err))
		}
		var next mcp.SessionTask
		if err := c.call(ctx, mcp.MethodTasksGet, mcp.TaskParams{TaskID: id}, &next, nil); err != nil {
			return nil, c.abandon(id, err)
		}
		t = next
	}
	var res json.RawMessage
	if err := c.call(ctx, mcp.MethodTasksResult, mcp.TaskParams{TaskID: id}, &res, nil); err != nil {
		if ctx.Err() != nil {
			return nil, c.abandon(id, err)
		}
		return nil, err
	}
	return res, nil
}
