package integration

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestPlainReplyIsJSONAndStreamingReplyIsSSE(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	_, resp, err := c.CallTool(ctx(t), "test_simple_text", nil)
	if err != nil || resp.Streamed || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("plain reply: streamed=%v content-type=%q err=%v", resp.Streamed, resp.Header.Get("Content-Type"), err)
	}
	resp, err = c.Call(ctx(t), "tools/call", map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": "tok"}})
	if err != nil || !resp.Streamed {
		t.Fatalf("streamed reply: %+v %v", resp, err)
	}
	if got := resp.Header.Get("X-Accel-Buffering"); got != "no" {
		t.Errorf("X-Accel-Buffering %q, want no", got)
	}
	if len(resp.Events) == 0 || resp.Events[0].ID == "" || resp.Events[0].HasData && resp.Events[0].Data != "" {
		t.Errorf("first event %+v is not a priming event", resp.Events)
	}
}

func TestProgressArrivesBeforeTheResultWithTheTokenAsSent(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	for _, token := range []any{"progress-test-1", 7} {
		resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": token}})
		if err != nil {
			t.Fatal(err)
		}
		var last float64 = -1
		n := 0
		for _, m := range resp.Notifications {
			if m.Method != "notifications/progress" {
				continue
			}
			var p mcp.ProgressParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			if string(p.ProgressToken) != mustJSON(token) {
				t.Errorf("token %s, want %s", p.ProgressToken, mustJSON(token))
			}
			if p.Progress < last {
				t.Errorf("progress went back from %v to %v", last, p.Progress)
			}
			last = p.Progress
			n++
		}
		if n != 3 {
			t.Errorf("token %v: %d progress notifications, want 3", token, n)
		}
	}
	// Without a token there is no progress.
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "test_tool_with_progress"})
	if err != nil || len(resp.Notifications) != 0 {
		t.Errorf("without a token: %d notifications, err %v", len(resp.Notifications), err)
	}
}

func TestLogLevelFilters(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	count := func() int {
		_, resp, err := c.CallTool(ctx(t), "test_tool_with_logging", nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(resp.Notifications)
	}
	if n := count(); n != 3 {
		t.Errorf("default level: %d log messages, want 3 (info)", n)
	}
	if _, err := c.Call(ctx(t), "logging/setLevel", map[string]string{"level": "warning"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("level warning: %d info messages, want 0", n)
	}
	resp, err := c.Call(ctx(t), "logging/setLevel", map[string]string{"level": "debug"})
	if err != nil || string(resp.Body) != `{"jsonrpc":"2.0","id":`+string(resp.ID)+`,"result":{}}` {
		t.Errorf("setLevel answer %s %v, want an exactly empty result", resp.Body, err)
	}
}

func TestElicitationSamplingAndRootsRoundTrip(t *testing.T) {
	r := fixture.New(quiet)
	r.Tool("roots", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		roots, err := c.ListRoots()
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(roots[0].URI)
	}, specter.Description("Lists the client's roots"))
	e := newEnv(t, r)
	c := e.newClient(nil)
	c.OnRequest = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		switch method {
		case "elicitation/create":
			return map[string]any{"action": "accept", "content": map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		case "sampling/createMessage":
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hi"}, "model": "m"}, nil
		case "roots/list":
			return map[string]any{"roots": []map[string]any{{"uri": "file:///work", "name": "work"}}}, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "no")
	}
	e.session(c, "2025-11-25")
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"test_elicitation", map[string]any{"message": "Who?"}, `User response: action=accept, content={"email":"ada@example.com","username":"ada"}`},
		{"test_sampling", map[string]any{"prompt": "Say hi"}, "LLM response: hi"},
		{"roots", nil, "file:///work"},
	} {
		res, resp, err := c.CallTool(ctx(t), tc.tool, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := text(t, res); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.tool, got, tc.want)
		}
		if len(resp.Requests) != 1 {
			t.Errorf("%s: %d server requests on the stream, want 1", tc.tool, len(resp.Requests))
		}
	}
}

func TestServerRequestFailsFastWithoutCapability(t *testing.T) {
	e := newEnv(t, nil)
	c := e.newClient(nil)
	c.Capabilities = mcp.ClientCapabilities{}
	e.session(c, "2025-11-25")
	_, resp, err := c.CallTool(ctx(t), "test_elicitation", map[string]any{"message": "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMissingCapability || !strings.Contains(je.Message, "elicitation") {
		t.Fatalf("got %v (%+v), want a missing-capability error naming elicitation", err, resp)
	}
	if len(resp.Requests) != 0 {
		t.Error("a request was sent to a client without the capability")
	}
}

func TestClientErrorAnswerReachesTheHandler(t *testing.T) {
	e := newEnv(t, nil)
	c := e.newClient(nil)
	c.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) {
		return nil, jsonrpc.Errorf(-1, "user refused")
	}
	e.session(c, "2025-11-25")
	_, _, err := c.CallTool(ctx(t), "test_sampling", map[string]any{"prompt": "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != "Internal error" {
		t.Fatalf("got %v, want the generic internal error (the detail goes to the log)", err)
	}
}

func TestAsyncReplyFromAnotherGoroutineLongAfterTheHandlerReturned(t *testing.T) {
	release, returned := make(chan struct{}), make(chan struct{})
	r := specter.NewRouter("t", "1", quiet, specter.KeepAlive(20*time.Millisecond))
	r.Tool("later", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		defer close(returned)
		return specter.NoReply(func(*specter.Stream) specter.Result {
			<-release
			return specter.Reply(map[string]any{"answer": 42})
		})
	}, specter.Description("Answers later"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	go func() {
		<-returned
		time.Sleep(200 * time.Millisecond) // long after, ten keep-alive intervals
		close(release)
	}()
	res, resp, err := c.CallTool(ctx(t), "later", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.StructuredContent) != `{"answer":42}` || text(t, res) != `{"answer":42}` {
		t.Errorf("result %+v", res)
	}
	if !resp.Streamed {
		t.Error("a 200 ms wait with 20 ms keep-alives did not become an event stream")
	}
}

func TestStreamResumesWithLastEventID(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "test_reconnection"})
	if !errors.Is(err, mcptest.ErrStreamEnded) {
		t.Fatalf("the server did not close the stream before the result: %+v %v", resp, err)
	}
	var last string
	retry := false
	for _, ev := range resp.Events {
		if ev.ID != "" {
			last = ev.ID
		}
		retry = retry || ev.Retry > 0
	}
	if last == "" || !retry {
		t.Fatalf("events %+v: want an id and a retry field", resp.Events)
	}
	s, err := c.Listen(ctx(t), last)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		m, _, err := s.Next()
		if err != nil {
			t.Fatalf("resumed stream: %v", err)
		}
		if m.Kind() == jsonrpc.KindResponse {
			if !strings.Contains(string(m.Result), "Reconnection test completed") {
				t.Errorf("result %s", m.Result)
			}
			return
		}
	}
}

func TestSecondStandaloneStreamIs409(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	s, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := c.Listen(ctx(t), ""); !isStatus(err, http.StatusConflict) {
		t.Fatalf("second GET: %v, want 409", err)
	}
	if _, err := c.Listen(ctx(t), "nonsense"); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("GET with an unknown Last-Event-ID: %v, want 400", err)
	}
}

func TestListChangedAndResourceUpdatedReachTheGETStream(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	if _, err := c.Call(ctx(t), "resources/subscribe", map[string]string{"uri": "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e.r.Tool("runtime_tool", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("x")
	}, specter.Description("Added while serving"))
	e.r.NotifyResourceUpdated("test://watched-resource")
	e.r.NotifyResourceUpdated("test://static-text") // not subscribed: not sent
	e.r.RemovePrompt("test_simple_prompt")
	want := []string{"notifications/tools/list_changed", "notifications/resources/updated", "notifications/prompts/list_changed"}
	for _, w := range want {
		m, _, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Method != w {
			t.Fatalf("got %s, want %s", m.Method, w)
		}
	}
	tools, _ := c.ListTools(ctx(t))
	if tools[len(tools)-1].Name != "runtime_tool" {
		t.Errorf("the runtime tool is not listed last: %v", tools[len(tools)-1].Name)
	}
}

func TestDuplicateInFlightRequestIDIsRejected(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 1)
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("block", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		started <- struct{}{}
		<-release
		return specter.Reply("done")
	}, specter.Description("Blocks"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	body := `{"jsonrpc":"2.0","id":"same","method":"tools/call","params":{"name":"block"}}`
	first := make(chan *mcptest.Response)
	go func() {
		resp, _ := post(t, c, body, nil)
		first <- resp
	}()
	<-started // the first is in flight
	second, _ := post(t, c, body, nil)
	close(release)
	if second.Error == nil || second.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("duplicate id: %+v, want -32600", second)
	}
	if resp := <-first; resp.Error != nil {
		t.Fatalf("first request: %+v", resp.Error)
	}
}

func TestKeepAliveCommentsOnQuietStreams(t *testing.T) {
	// The tool answers once the client has read two keep-alives: a
	// stream that never gets one ends with the request's context.
	release := make(chan struct{})
	r := specter.NewRouter("t", "1", quiet, specter.KeepAlive(10*time.Millisecond))
	r.Tool("slow", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		select {
		case <-release:
		case <-c.Done():
		}
		return specter.Reply("done")
	}, specter.Description("Slow"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	req, _ := c.NewRequest(ctx(t), http.MethodPost, []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`))
	hr, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Body.Close()
	var body strings.Builder
	buf := make([]byte, 4096)
	for released := false; ; {
		n, err := hr.Body.Read(buf)
		body.Write(buf[:n])
		if err != nil {
			break
		}
		if !released && strings.Count(body.String(), ": keep-alive") >= 2 {
			close(release)
			released = true
		}
	}
	if got := strings.Count(body.String(), ": keep-alive"); got < 2 {
		t.Errorf("%d keep-alive comments in %q, want at least 2", got, body.String())
	}
	if !strings.Contains(body.String(), `"text":"done"`) {
		t.Errorf("no result in %q", body.String())
	}
}
