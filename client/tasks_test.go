package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// taskRouter has tools that run as tasks: "deploy" asks a question
// through its task, "fail" fails, "hang" waits until cancelled and says
// so on stopped.
func taskRouter(t *testing.T, stopped chan<- struct{}) *specter.Router {
	r := specter.NewRouter("tasks", "1.0.0", specter.Logger(zerolog.Nop()), specter.AnonymousTasks())
	schema := params.Must(params.Raw([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)))
	r.Tool("deploy", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			v, _, err := s.Elicit("Deploy as?", schema)
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply("deployed by " + v.String("name"))
		})
	}, specter.Description("Deploys, as a task"), specter.Tasks(specter.TaskRequired))
	r.Tool("fail", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(*specter.Stream) specter.Result {
			return specter.Error(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "nothing to deploy"))
		})
	}, specter.Description("Fails, as a task"), specter.Tasks(specter.TaskRequired))
	r.Tool("hang", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			<-s.Done()
			close(stopped)
			return specter.Reply("stopped")
		})
	}, specter.Description("Runs until cancelled, as a task"), specter.Tasks(specter.TaskRequired))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return r
}

// TestTasks follows tasks to their end: an input_required task answered
// by the elicitation handler through tasks/update, a failed task, and a
// task cancelled when the caller gives up.
func TestTasks(t *testing.T) {
	stopped := make(chan struct{})
	r := taskRouter(t, stopped)
	polled := make(chan struct{}, 1) // a tasks/get arrived
	h := r.Handler()
	c := connect(t, client.InMemory(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Method") == mcp.MethodTasksGet {
			select {
			case polled <- struct{}{}:
			default:
			}
		}
		h.ServeHTTP(w, req)
	})), handlers(&client.Options{Tasks: true}))
	if _, ok := c.ServerCapabilities().Extensions[mcp.ExtensionTasks]; !ok {
		t.Fatalf("the server does not advertise tasks: %+v", c.ServerCapabilities())
	}
	res, err := c.CallTool(t.Context(), "deploy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "deployed by Ada" {
		t.Errorf("deploy: %q", got)
	}

	_, err = c.CallTool(t.Context(), "fail", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "failed") {
		t.Errorf("fail: %v, want the task's error", err)
	}

	// The caller gives up once the client polls the task.
	select {
	case <-polled: // the earlier tasks' polls
	default:
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		select {
		case <-polled:
			cancel()
		case <-ctx.Done():
		}
	}()
	if _, err = c.CallTool(ctx, "hang", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("hang: %v, want context.Canceled", err)
	}
	select {
	case <-stopped:
	case <-mcptest.Context(t).Done():
		t.Fatal("the abandoned task was not cancelled on the server by the test's deadline")
	}
}

// TestTasksByHand drives tasks with GetTask, UpdateTask and CancelTask,
// as a client that persists task ids does.
func TestTasksByHand(t *testing.T) {
	stopped := make(chan struct{})
	r := taskRouter(t, stopped)
	c := connect(t, client.InMemory(r.Handler()), handlers(&client.Options{Tasks: true}))
	ctx := t.Context()
	start := func(tool string) string {
		var created mcp.Task
		if err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": tool}, &created, client.KeepTask()); err != nil {
			t.Fatal(err)
		}
		if created.ResultType != mcp.ResultTask || created.TaskID == "" {
			t.Fatalf("%s: %+v, want a task", tool, created)
		}
		return created.TaskID
	}
	// wait polls the task until it reaches status.
	wait := func(id, status string) *mcp.Task {
		for {
			task, err := c.GetTask(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if task.Status == status {
				return task
			}
			if task.Terminal() {
				t.Fatalf("task %+v, want %s", task, status)
			}
			time.Sleep(time.Duration(task.PollIntervalMs) * time.Millisecond)
		}
	}

	id := start("deploy")
	task := wait(id, mcp.TaskInputRequired)
	if len(task.InputRequests) != 1 {
		t.Fatalf("input requests %s", task.InputRequests)
	}
	answers := map[string]json.RawMessage{}
	for key := range task.InputRequests {
		answers[key] = json.RawMessage(`{"action":"accept","content":{"name":"Grace"}}`)
	}
	if err := c.UpdateTask(ctx, id, answers); err != nil {
		t.Fatal(err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(wait(id, mcp.TaskCompleted).Result, &res); err != nil {
		t.Fatal(err)
	}
	if got := text(t, &res); got != "deployed by Grace" {
		t.Errorf("deploy: %q", got)
	}

	id = start("hang")
	if err := c.CancelTask(ctx, id); err != nil {
		t.Fatal(err)
	}
	wait(id, mcp.TaskCancelled)
	<-stopped
}
