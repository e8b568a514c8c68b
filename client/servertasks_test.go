package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// pipe is a Transport whose server end the test drives by hand.
type pipe struct{ client net.Conn }

func (p pipe) Connect(context.Context) (client.Conn, error) {
	return client.StreamConn(p.client, client.Lines), nil
}

// scripted is the server end of a pipe: the test reads what the client
// sends and writes what the server would.
type scripted struct {
	t    *testing.T
	conn net.Conn
	dec  *json.Decoder
}

func (s *scripted) recv() *jsonrpc.Message {
	s.t.Helper()
	var m jsonrpc.Message
	if err := s.dec.Decode(&m); err != nil {
		s.t.Fatal(err)
	}
	return &m
}

func (s *scripted) send(id, method string, params any) {
	s.t.Helper()
	b, _ := json.Marshal(params)
	m := &jsonrpc.Message{JSONRPC: jsonrpc.Version, Method: method, Params: b}
	if id != "" {
		m.ID = jsonrpc.ID(`"` + id + `"`)
	}
	if err := json.NewEncoder(s.conn).Encode(m); err != nil {
		s.t.Fatal(err)
	}
}

// ask sends a request to the client and returns its answer.
func (s *scripted) ask(id, method string, params any) *jsonrpc.Message {
	s.t.Helper()
	s.send(id, method, params)
	m := s.recv()
	if m.ID.Key() != jsonrpc.ID(`"`+id+`"`).Key() {
		s.t.Fatalf("answer %+v to %s", m, id)
	}
	return m
}

// connectScripted connects a session-era client with opts over ours,
// s answering its initialize, and returns the client and the initialize
// request. Cleanup closes both ends.
func connectScripted(t *testing.T, s *scripted, ours net.Conn, opts *client.Options) (*client.Client, *jsonrpc.Message) {
	t.Helper()
	connected := make(chan *client.Client, 1)
	go func() {
		c, err := client.Connect(t.Context(), pipe{ours}, opts)
		if err != nil {
			t.Error(err)
		}
		connected <- c
	}()
	init := s.recv()
	res, _ := json.Marshal(mcp.InitializeResult{ProtocolVersion: mcp.Version20251125, ServerInfo: mcp.Implementation{Name: "scripted", Version: "1"}})
	_ = json.NewEncoder(s.conn).Encode(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: init.ID, Result: res})
	if m := s.recv(); m.Method != mcp.NotificationInitialized {
		t.Fatalf("after initialize: %+v", m)
	}
	c := <-connected
	if c == nil {
		t.FailNow()
	}
	t.Cleanup(func() {
		_ = c.Close(context.Background())
		s.conn.Close()
	})
	return c, init
}

// TestServerTasks: a session-era server asks for sampling as tasks; the
// client answers each with a task at once, and serves tasks/get,
// tasks/list, tasks/cancel and tasks/result, within its bound of held
// tasks. Close cancels what still runs.
func TestServerTasks(t *testing.T) {
	ours, theirs := net.Pipe()
	s := &scripted{t: t, conn: theirs, dec: json.NewDecoder(theirs)}
	release := make(chan struct{})
	cancelled := make(chan struct{}, 64)
	// Room for more tasks running at once than the 32 held.
	opts := &client.Options{Version: mcp.Version20251125, Tasks: true, MaxServerRequests: 64,
		Sampling: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			if p.Messages[0].Content.Text() == "now" {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: mcp.SamplingContent{mcp.Text("at once")}}, nil
			}
			select {
			case <-release:
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: mcp.SamplingContent{mcp.Text("later")}}, nil
			case <-ctx.Done():
				cancelled <- struct{}{}
				return nil, ctx.Err()
			}
		}}
	_, init := connectScripted(t, s, ours, opts)
	var ip mcp.InitializeParams
	_ = json.Unmarshal(init.Params, &ip)
	if !strings.Contains(string(ip.Capabilities.Tasks), `"sampling":{"createMessage":{}}`) {
		t.Errorf("tasks capability %s", ip.Capabilities.Tasks)
	}

	sample := func(text string, task bool) map[string]any {
		p := map[string]any{"messages": []any{map[string]any{"role": "user", "content": mcp.Text(text)}}, "maxTokens": 10}
		if task {
			p["task"] = map[string]any{"ttl": 60000}
		}
		return p
	}
	taskOf := func(m *jsonrpc.Message) mcp.SessionTask {
		t.Helper()
		var cr mcp.CreateTaskResult
		if m.Error != nil || json.Unmarshal(m.Result, &cr) != nil || cr.Task == nil || cr.Task.Status != mcp.TaskWorking || cr.Task.TTL != 60000 {
			t.Fatalf("a task-augmented request answered %+v", m)
		}
		return *cr.Task
	}
	refused := func(m *jsonrpc.Message, code int) {
		t.Helper()
		if m.Error == nil || m.Error.Code != code {
			t.Fatalf("%+v, want error %d", m, code)
		}
	}

	if m := s.ask("plain", mcp.MethodSample, sample("now", false)); !strings.Contains(string(m.Result), `"text":"at once"`) {
		t.Errorf("a plain sampling request: %+v", m)
	}
	a := taskOf(s.ask("a", mcp.MethodSample, sample("later", true)))
	b := taskOf(s.ask("b", mcp.MethodSample, sample("later", true)))
	var list mcp.ListTasksResult
	if m := s.ask("list", mcp.MethodTasksList, nil); json.Unmarshal(m.Result, &list) != nil || len(list.Tasks) != 2 || list.Tasks[0].TaskID != a.TaskID {
		t.Errorf("tasks/list: %+v", m)
	}
	var got mcp.SessionTask
	if m := s.ask("cancel", mcp.MethodTasksCancel, mcp.TaskParams{TaskID: b.TaskID}); json.Unmarshal(m.Result, &got) != nil || got.Status != mcp.TaskCancelled {
		t.Errorf("tasks/cancel: %+v", m)
	}
	<-cancelled
	refused(s.ask("again", mcp.MethodTasksCancel, mcp.TaskParams{TaskID: b.TaskID}), jsonrpc.CodeInvalidParams)
	refused(s.ask("cancelled-result", mcp.MethodTasksResult, mcp.TaskParams{TaskID: b.TaskID}), jsonrpc.CodeInternalError)
	refused(s.ask("unknown", mcp.MethodTasksGet, mcp.TaskParams{TaskID: "nope"}), jsonrpc.CodeInvalidParams)
	if m := s.ask("get", mcp.MethodTasksGet, mcp.TaskParams{TaskID: a.TaskID}); json.Unmarshal(m.Result, &got) != nil || got.Status != mcp.TaskWorking {
		t.Errorf("tasks/get: %+v", m)
	}
	// The client holds 32 tasks at most, ended ones included.
	for i := range 30 {
		taskOf(s.ask(fmt.Sprint("fill", i), mcp.MethodSample, sample("later", true)))
	}
	refused(s.ask("over", mcp.MethodSample, sample("later", true)), jsonrpc.CodeInternalError)

	s.send("result", mcp.MethodTasksResult, mcp.TaskParams{TaskID: a.TaskID})
	close(release)
	m := s.recv()
	var out struct {
		mcp.CreateMessageResult
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if m.ID.Key() != `"result"` || json.Unmarshal(m.Result, &out) != nil || out.Content.Text() != "later" || out.Meta[mcp.MetaRelatedTask].TaskID != a.TaskID {
		t.Errorf("tasks/result: %+v", m)
	}
}
