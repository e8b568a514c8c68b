package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// startSessionTask calls tool as a task in a session of revision 2025-11-25 and
// returns the task it created.
func startSessionTask(t *testing.T, c *mcptest.Client, tool string, args map[string]any) *mcp.Task {
	t.Helper()
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": tool, "arguments": args, "task": map[string]any{"ttl": 60000}})
	if err != nil || resp.Error != nil {
		t.Fatalf("tools/call %s as a task: %v %v", tool, err, resp.Error)
	}
	var created mcp.CreateTaskResult
	if err := resp.Decode(&created); err != nil || created.Task == nil || created.Task.Status != "working" || created.Task.TTL != 60000 {
		t.Fatalf("CreateTaskResult: %s %v", resp.Result, err)
	}
	return created.Task
}

func taskStatus(t *testing.T, c *mcptest.Client, id string) *mcp.Task {
	t.Helper()
	resp, err := c.Call(ctx(t), "tasks/get", map[string]any{"taskId": id})
	if err != nil || resp.Error != nil {
		t.Fatalf("tasks/get: %v %v", err, resp.Error)
	}
	var got mcp.Task
	if err := resp.Decode(&got); err != nil {
		t.Fatal(err)
	}
	return &got
}

// A client of revision 2025-11-25 uses a TaskRequired tool end to end:
// the capability and the tool's execution.taskSupport tell it to; the
// call without a task is refused; the task is polled, listed, waited for
// with tasks/result, which carries the tool's result; its question reaches
// the client on the GET stream, tied to the task; a task is cancelled.
func TestSessionTasksEndToEnd(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client
	c.OnRequest = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		if !strings.Contains(string(params), mcp.MetaRelatedTask) {
			t.Errorf("%s is not tied to its task: %s", method, params)
		}
		return map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}, nil
	}
	init, err := c.Initialize(ctx(t), "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(init.Capabilities.Tasks), `"tools":{"call":{}}`) {
		t.Fatalf("no tasks capability: %s", init.Capabilities.Tasks)
	}
	tools, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil || !strings.Contains(string(tools.Result), `"name":"confirm_delete"`) ||
		!strings.Contains(string(tools.Result), `"execution":{"taskSupport":"required"}`) {
		t.Fatalf("tools/list: %s %v", tools.Result, err)
	}
	if resp, _ := c.Call(ctx(t), "tools/call", map[string]any{"name": "failing_job"}); resp.Error == nil || resp.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("a TaskRequired tool called without a task: %+v", resp.Error)
	}
	if resp, _ := c.Call(ctx(t), "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "A"}, "task": map[string]any{}}); resp.Error == nil || resp.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("a tool without task support called as a task: %+v", resp.Error)
	}

	get, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Close()
	statuses := make(chan string, 64)
	go func() {
		for {
			m, _, err := get.Next()
			if err != nil {
				close(statuses)
				return
			}
			if m.Method == mcp.NotificationTaskStatus {
				var s mcp.Task
				_ = json.Unmarshal(m.Params, &s)
				statuses <- s.TaskID + " " + s.Status
			}
		}
	}()

	job := startSessionTask(t, c, "slow_compute", map[string]any{"seconds": 0.3, "label": "pi"})
	if s := taskStatus(t, c, job.TaskID); s.Status != "working" {
		t.Fatalf("tasks/get at once: %+v", s)
	}
	resp, err := c.Call(ctx(t), "tasks/result", map[string]any{"taskId": job.TaskID})
	if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), "Computed pi in 0.3s") ||
		!strings.Contains(string(resp.Result), `"`+mcp.MetaRelatedTask+`":{"taskId":"`+job.TaskID+`"}`) {
		t.Fatalf("tasks/result: %s %v %v", resp.Result, err, resp.Error)
	}
	if s := taskStatus(t, c, job.TaskID); s.Status != "completed" {
		t.Fatalf("after the result: %+v", s)
	}

	confirm := startSessionTask(t, c, "confirm_delete", map[string]any{"filename": "a.txt"})
	resp, err = c.Call(ctx(t), "tasks/result", map[string]any{"taskId": confirm.TaskID})
	if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), "Deleted a.txt") {
		t.Fatalf("confirm_delete: %s %v %v", resp.Result, err, resp.Error)
	}

	failing := startSessionTask(t, c, "failing_job", nil)
	resp, _ = c.Call(ctx(t), "tasks/result", map[string]any{"taskId": failing.TaskID})
	if resp.Error != nil || !strings.Contains(string(resp.Result), `"isError":true`) || taskStatus(t, c, failing.TaskID).Status != "failed" {
		t.Fatalf("failing_job: %s %v", resp.Result, resp.Error)
	}

	long := startSessionTask(t, c, "slow_compute", map[string]any{"seconds": 30})
	resp, _ = c.Call(ctx(t), "tasks/cancel", map[string]any{"taskId": long.TaskID})
	var cancelled mcp.Task
	if resp.Error != nil || resp.Decode(&cancelled) != nil || cancelled.Status != "cancelled" {
		t.Fatalf("tasks/cancel: %s %v", resp.Result, resp.Error)
	}
	if resp, _ := c.Call(ctx(t), "tasks/cancel", map[string]any{"taskId": long.TaskID}); resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("cancel of an ended task: %+v", resp.Error)
	}
	if resp, _ := c.Call(ctx(t), "tasks/get", map[string]any{"taskId": "nope"}); resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("tasks/get of an unknown task: %+v", resp.Error)
	}

	resp, err = c.Call(ctx(t), "tasks/list", nil)
	var list mcp.ListTasksResult
	if err != nil || resp.Decode(&list) != nil || len(list.Tasks) != 4 {
		t.Fatalf("tasks/list: %s %v", resp.Result, err)
	}
	// Another session sees none of them.
	other := e.session(e.newClient(nil), "2025-11-25")
	if resp, _ := other.Call(ctx(t), "tasks/get", map[string]any{"taskId": job.TaskID}); resp.Error == nil {
		t.Fatal("another session reads the task")
	}

	want := map[string]bool{job.TaskID + " completed": false, confirm.TaskID + " input_required": false, long.TaskID + " cancelled": false}
	deadline := time.After(5 * time.Second)
	for missing := len(want); missing > 0; {
		select {
		case s := <-statuses:
			if seen, ok := want[s]; ok && !seen {
				want[s], missing = true, missing-1
			}
		case <-deadline:
			t.Fatalf("status notifications missing: %v", want)
		}
	}
}
