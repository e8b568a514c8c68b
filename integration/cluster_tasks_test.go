package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// taskView is the part of a 2026-07-28 task the tests read.
type taskView struct {
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        json.RawMessage            `json:"result"`
}

func statelessTaskClient(n *node) *mcptest.StatelessClient {
	c := mcptest.NewStatelessClient(n.url)
	c.HTTP = n.srv.Client()
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{},
		Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}}
	return c
}

func callTask(t *testing.T, c *mcptest.StatelessClient, method string, p map[string]any) *taskView {
	t.Helper()
	resp, err := c.Call(ctx(t), method, p)
	if err != nil || resp.Error != nil {
		t.Fatalf("%s: %v %+v", method, err, resp.Error)
	}
	var v taskView
	if err := json.Unmarshal(resp.Result, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// pollUntil polls tasks/get through c until the task has status.
func pollUntil(t *testing.T, c *mcptest.StatelessClient, id, status string) *taskView {
	t.Helper()
	done := testCtx(t).Done()
	for {
		v := callTask(t, c, "tasks/get", map[string]any{"taskId": id})
		if v.Status == status {
			return v
		}
		select {
		case <-done:
			t.Fatalf("task %s stays %s at the test's deadline, want %s", id, v.Status, status)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A task whose work runs on node A is polled, answered and cancelled
// through node B; the cancel stops the work on A.
func TestClusterTasksOnAnyNode(t *testing.T) {
	redis := redistest.Start(t)
	stopped := make(chan struct{}, 1)
	nodes := newCluster(t, redis.URL, 2, func(r *specter.Router) {
		r.Tool("watch", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				<-s.Done()
				stopped <- struct{}{}
				return specter.Error(s.Err())
			})
		}, specter.Description("Runs until cancelled"), specter.Tasks(specter.TaskRequired))
	})
	a, b := statelessTaskClient(nodes[0]), statelessTaskClient(nodes[1])

	started := callTask(t, a, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "x.txt"}})
	if started.TaskID == "" || started.Status != "working" {
		t.Fatalf("started on A: %+v", started)
	}
	asked := pollUntil(t, b, started.TaskID, "input_required")
	if _, ok := asked.InputRequests["confirm"]; !ok {
		t.Fatalf("B does not see A's question: %+v", asked)
	}
	callTask(t, b, "tasks/update", map[string]any{"taskId": started.TaskID,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	done := pollUntil(t, b, started.TaskID, "completed")
	if !strings.Contains(string(done.Result), "Deleted x.txt") {
		t.Fatalf("the result read on B: %s", done.Result)
	}

	watch := callTask(t, a, "tools/call", map[string]any{"name": "watch"})
	pollUntil(t, b, watch.TaskID, "working")
	callTask(t, b, "tasks/cancel", map[string]any{"taskId": watch.TaskID})
	select {
	case <-stopped:
	case <-testCtx(t).Done():
		t.Fatal("the cancel on B did not reach the work on A by the test's deadline")
	}
	pollUntil(t, a, watch.TaskID, "cancelled")
	time.Sleep(100 * time.Millisecond) // the work's own end must not change it
	pollUntil(t, b, watch.TaskID, "cancelled")
}

// A task a 2025-11-25 session starts on node A is read, waited for,
// listed and cancelled through node B.
func TestClusterSessionTasksOnAnyNode(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 2, nil)
	a := join(t, nodes[0])
	b := on(t, a, nodes[1])

	job := startSessionTask(t, a, "slow_compute", map[string]any{"seconds": 0.3, "label": "pi"})
	if s := taskStatus(t, b, job.TaskID); s.Status != "working" {
		t.Fatalf("tasks/get on B at once: %+v", s)
	}
	resp, err := b.Call(ctx(t), "tasks/result", map[string]any{"taskId": job.TaskID})
	if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), "Computed pi in 0.3s") {
		t.Fatalf("tasks/result on B: %s %v %v", resp.Result, err, resp.Error)
	}

	long := startSessionTask(t, a, "slow_compute", map[string]any{"seconds": 30})
	resp, _ = b.Call(ctx(t), "tasks/cancel", map[string]any{"taskId": long.TaskID})
	var cancelled mcp.SessionTask
	if resp.Error != nil || resp.Decode(&cancelled) != nil || cancelled.Status != "cancelled" {
		t.Fatalf("tasks/cancel on B: %s %v", resp.Result, resp.Error)
	}
	time.Sleep(100 * time.Millisecond) // the work's own end must not change it
	if s := taskStatus(t, a, long.TaskID); s.Status != "cancelled" {
		t.Fatalf("tasks/get on A after the cancel: %+v", s)
	}
	resp, err = b.Call(ctx(t), "tasks/list", nil)
	var list mcp.ListTasksResult
	if err != nil || resp.Decode(&list) != nil || len(list.Tasks) != 2 {
		t.Fatalf("tasks/list on B: %s %v", resp.Result, err)
	}
}
