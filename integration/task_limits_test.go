package integration

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// taskServer serves tools that run as tasks: echo (its pad argument back,
// TaskOptional), big (a result of size bytes) and ask (a question of size
// bytes, then its answer; both TaskRequired). Connect names the caller
// after its X-User header, if any.
func taskServer(t *testing.T, opts ...specter.RouterOption) *httptest.Server {
	t.Helper()
	r := specter.NewRouter("tasks", "1.0", append([]specter.RouterOption{quiet}, opts...)...)
	r.Connect(func(c *specter.Context) error {
		if u := c.HTTPRequest().Header.Get("X-User"); u != "" {
			c.SetPrincipal(u)
		}
		return nil
	})
	r.Tool("echo", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		pad := p.String("pad")
		return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply(pad) })
	}, specter.Description("Echoes its argument"), specter.Tasks(specter.TaskOptional), params.String("pad"))
	r.Tool("big", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		n := int(p.Float("size"))
		return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply(strings.Repeat("x", n)) })
	}, specter.Description("Answers size bytes"), specter.Tasks(specter.TaskRequired), params.Number("size"))
	r.Tool("ask", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		n := int(p.Float("size"))
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			_, action, err := s.Elicit(strings.Repeat("?", n), params.Must(params.New(params.Boolean("ok"))), specter.InputKey("ok"))
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(string(action))
		})
	}, specter.Description("Asks a question of size bytes"), specter.Tasks(specter.TaskRequired), params.Number("size"))
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return srv
}

// taskClient is a 2026-07-28 client that declares the tasks extension,
// as user (anonymous when "").
func taskClient(srv *httptest.Server, user string) *mcptest.StatelessClient {
	c := mcptest.NewStatelessClient(srv.URL)
	c.HTTP = srv.Client()
	if user != "" {
		c.Header.Set("X-User", user)
	}
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{},
		Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}}
	return c
}

// taskState is a 2026-07-28 answer that may be a task.
type taskState struct {
	ResultType string         `json:"resultType"`
	TaskID     string         `json:"taskId"`
	Status     string         `json:"status"`
	Error      *jsonrpc.Error `json:"error"`
}

func callState(t *testing.T, c *mcptest.StatelessClient, method string, p map[string]any) (*taskState, *jsonrpc.Error) {
	t.Helper()
	resp, err := c.Call(ctx(t), method, p)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	var s taskState
	if err := json.Unmarshal(resp.Result, &s); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return &s, nil
}

// settled polls tasks/get until the task ended, and returns it.
func settled(t *testing.T, c *mcptest.StatelessClient, id string, until func(*taskState) bool) *taskState {
	t.Helper()
	for done := testCtx(t).Done(); ; {
		s, e := callState(t, c, mcp.MethodTasksGet, map[string]any{"taskId": id})
		if e != nil {
			t.Fatalf("tasks/get %s: %v", id, e)
		}
		if until(s) {
			return s
		}
		select {
		case <-done:
			t.Fatalf("task %s is still %s at the test's deadline", id, s.Status)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func ended(s *taskState) bool {
	return s.Status == "completed" || s.Status == "failed" || s.Status == "cancelled"
}

// 25 task calls of one caller, each with a 3.5 MiB argument echoed into
// its result, pin what MaxTaskBytesPerPrincipal allows (32 MiB), not
// every result for the tasks' TTL; the calls past it fail with an error
// saying why (issue 19, item 2: they pinned +290 MiB).
func TestTaskResultsPinBoundedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("memory is measured without -race")
	}
	srv := taskServer(t)
	c := taskClient(srv, "alice")
	pad := strings.Repeat("p", 3<<20+512<<10)
	before := memStats()
	ids := make([]string, 25)
	for i := range ids {
		s, e := callState(t, c, mcp.MethodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"pad": pad}})
		if e != nil || s.TaskID == "" {
			t.Fatalf("call %d: %+v %v", i, s, e)
		}
		ids[i] = s.TaskID
	}
	completed, refused := 0, 0
	for _, id := range ids {
		switch s := settled(t, c, id, ended); {
		case s.Status == "completed":
			completed++
		case s.Error != nil && strings.Contains(s.Error.Message, "Task result too large"):
			refused++
		default:
			t.Errorf("task %s: %s %+v", id, s.Status, s.Error)
		}
	}
	pinned := int64(memStats()) - int64(before)
	t.Logf("25 tasks with 3.5 MiB results: %d completed, %d failed as too large; heap +%.1f MiB", completed, refused, float64(pinned)/(1<<20))
	if completed == 0 || refused == 0 {
		t.Errorf("%d completed, %d refused; want both", completed, refused)
	}
	if pinned > 48<<20 {
		t.Errorf("the tasks pin %.1f MiB; the bound is 32 MiB of results, plus slack", float64(pinned)/(1<<20))
	}
}

// One caller holds at most MaxTasksPerPrincipal (100) tasks; the next
// task-augmented call is refused naming the limit, while another caller
// still gets its own (issue 19, item 2).
func TestTasksPerCallerCapped(t *testing.T) {
	srv := taskServer(t)
	alice, bob := taskClient(srv, "alice"), taskClient(srv, "bob")
	for i := range 100 {
		if s, e := callState(t, alice, mcp.MethodToolsCall, map[string]any{"name": "big", "arguments": map[string]any{"size": 1}}); e != nil || s.TaskID == "" {
			t.Fatalf("task %d: %+v %v", i, s, e)
		}
	}
	_, e := callState(t, alice, mcp.MethodToolsCall, map[string]any{"name": "big", "arguments": map[string]any{"size": 1}})
	if e == nil || e.Code != -32000 || !strings.Contains(e.Message, "100 tasks") {
		t.Errorf("task 101 of one caller: %v; want -32000 naming the limit of 100", e)
	}
	if s, e := callState(t, bob, mcp.MethodToolsCall, map[string]any{"name": "big", "arguments": map[string]any{"size": 1}}); e != nil || s.TaskID == "" {
		t.Errorf("another caller's task: %+v %v", s, e)
	}
}

// One task keeps at most MaxTaskResultBytes (4 MiB): a larger result, or
// a larger question while it waits for input, fails the task with an
// error saying so; smaller ones are kept (issue 19, item 2).
func TestTaskResultSizeBounded(t *testing.T) {
	srv := taskServer(t)
	c := taskClient(srv, "alice")
	for _, tc := range []struct {
		tool   string
		size   int
		status string
	}{
		{"big", 3 << 20, "completed"},
		{"big", 5 << 20, "failed"},
		{"ask", 1 << 10, "input_required"},
		{"ask", 5 << 20, "failed"},
	} {
		s, e := callState(t, c, mcp.MethodToolsCall, map[string]any{"name": tc.tool, "arguments": map[string]any{"size": tc.size}})
		if e != nil {
			t.Fatalf("%s %d: %v", tc.tool, tc.size, e)
		}
		got := settled(t, c, s.TaskID, func(s *taskState) bool { return s.Status != "working" })
		if got.Status != tc.status || tc.status == "failed" && (got.Error == nil || !strings.Contains(got.Error.Message, "at most 4194304")) {
			t.Errorf("%s of %d bytes: %s %+v; want %s", tc.tool, tc.size, got.Status, got.Error, tc.status)
		}
		if !ended(got) {
			_, _ = callState(t, c, mcp.MethodTasksCancel, map[string]any{"taskId": s.TaskID})
		}
	}
}

// Anonymous 2026-07-28 callers share no owner: without AnonymousTasks
// their calls answer within the request and task-only tools are refused;
// with it, a task belongs to its caller's address, and a caller from
// another address cannot read, answer or cancel it even with its id
// (issue 19, item 2: every anonymous task was owned by "p:").
func TestAnonymousTasksAreNotShared(t *testing.T) {
	t.Run("by default", func(t *testing.T) {
		srv := taskServer(t)
		a, b := taskClient(srv, ""), taskClient(srv, "")
		s, e := callState(t, a, mcp.MethodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"pad": "mine"}})
		if e != nil || s.TaskID != "" || s.ResultType != "complete" {
			t.Errorf("an anonymous call of a TaskOptional tool: %+v %v; want its result, not a task", s, e)
		}
		if s != nil && s.TaskID != "" {
			if got, e := callState(t, b, mcp.MethodTasksGet, map[string]any{"taskId": s.TaskID}); e == nil {
				t.Errorf("another anonymous caller reads the task: %+v", got)
			}
		}
		if _, e := callState(t, a, mcp.MethodToolsCall, map[string]any{"name": "big", "arguments": map[string]any{"size": 1}}); e == nil || e.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("an anonymous call of a TaskRequired tool: %v; want -32600", e)
		}
	})
	t.Run("AnonymousTasks", func(t *testing.T) {
		srv := taskServer(t, specter.AnonymousTasks())
		a := taskClient(srv, "")
		other := taskClient(srv, "")
		// Another client address: 127.0.0.2 reaches the loopback server.
		other.HTTP = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
		s, e := callState(t, a, mcp.MethodToolsCall, map[string]any{"name": "ask", "arguments": map[string]any{"size": 10}})
		if e != nil || s.TaskID == "" {
			t.Fatalf("an anonymous task: %+v %v", s, e)
		}
		settled(t, a, s.TaskID, func(s *taskState) bool { return s.Status == "input_required" })
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{mcp.MethodTasksGet, map[string]any{"taskId": s.TaskID}},
			{mcp.MethodTasksUpdate, map[string]any{"taskId": s.TaskID, "inputResponses": map[string]any{"ok": map[string]any{"action": "decline"}}}},
			{mcp.MethodTasksCancel, map[string]any{"taskId": s.TaskID}},
		} {
			if got, e := callState(t, other, m.method, m.params); e == nil {
				t.Errorf("%s from another address: %+v; want an unknown task", m.method, got)
			}
		}
		if got := settled(t, a, s.TaskID, func(*taskState) bool { return true }); got.Status != "input_required" {
			t.Errorf("after the other address tried: %s, want input_required", got.Status)
		}
		if _, e := callState(t, a, mcp.MethodTasksCancel, map[string]any{"taskId": s.TaskID}); e != nil {
			t.Errorf("its owner cancels it: %v", e)
		}
	})
}
