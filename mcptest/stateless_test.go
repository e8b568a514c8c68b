package mcptest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

func TestEncodeHeaderValue(t *testing.T) {
	tests := []struct {
		in      string
		literal bool
	}{
		{"tools/call", true},
		{"test://static-text", true},
		{"", true},
		{"a b", true},
		{"=?base64?SGVsbG8=", true}, // no suffix: taken literally
		{"SGVsbG8=?=", true},        // no prefix: taken literally
		{"=?BASE64?SGVsbG8=?=", true},
		{"=?base64?SGVsbG8=?=", false}, // would be decoded to "Hello"
		{"=?base64??=", false},
		{"héllo", false},
		{"日本", false},
		{" leading", false},
		{"trailing\t", false},
		{"line\nbreak", false},
		{"del\x7f", false},
	}
	for _, tt := range tests {
		got := EncodeHeaderValue(tt.in)
		if tt.literal {
			if got != tt.in {
				t.Errorf("EncodeHeaderValue(%q) = %q, want it literally", tt.in, got)
			}
			continue
		}
		inner, ok := strings.CutPrefix(got, "=?base64?")
		inner, ok2 := strings.CutSuffix(inner, "?=")
		if !ok || !ok2 {
			t.Errorf("EncodeHeaderValue(%q) = %q, want the =?base64?…?= form", tt.in, got)
			continue
		}
		b, err := base64.StdEncoding.Strict().DecodeString(inner)
		if err != nil || string(b) != tt.in {
			t.Errorf("EncodeHeaderValue(%q) = %q decodes to %q, %v", tt.in, got, b, err)
		}
	}
}

// recorder is an endpoint that records requests and answers each with
// answer.
type recorder struct {
	mu      sync.Mutex
	headers []http.Header
	bodies  []string
	answer  func(w http.ResponseWriter, m *jsonrpc.Message)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.headers = append(rec.headers, r.Header.Clone())
	rec.bodies = append(rec.bodies, string(b))
	rec.mu.Unlock()
	msgs, _, err := jsonrpc.Parse(b)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rec.answer(w, msgs[0])
}

func jsonAnswer(w http.ResponseWriter, m *jsonrpc.Message) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{"resultType":"complete"}`)))
}

func TestStatelessRequestOnTheWire(t *testing.T) {
	rec := &recorder{answer: jsonAnswer}
	srv, _ := NewServer(t, rec, "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.Header.Set("Authorization", "Bearer t")
	c.Capabilities = mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}
	c.ClientInfo = &mcp.Implementation{Name: "probe", Version: "0.1"}
	c.LogLevel = mcp.LevelDebug
	var seen []string
	c.OnMessage = func(request string, _ []byte) { seen = append(seen, request) }
	ctx := context.Background()

	params := map[string]any{"uri": "test://héllo", "_meta": map[string]any{"progressToken": "tok"}}
	resp, err := c.Call(ctx, "resources/read", params)
	if err != nil || string(resp.ID) != "1" || string(resp.Result) != `{"resultType":"complete"}` {
		t.Fatalf("Call = %+v, %v", resp, err)
	}
	if _, _, err := c.CallTool(ctx, "greet", map[string]any{"who": "ada"}, Retry("S", map[string]any{"k": 1})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	if len(params) != 2 || len(params["_meta"].(map[string]any)) != 1 {
		t.Errorf("Call changed the caller's params: %v", params)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	meta := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"0.1"},"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	wantBodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{` + meta + `,"progressToken":"tok"},"uri":"test://héllo"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `},"arguments":{"who":"ada"},"inputResponses":{"k":1},"name":"greet","requestState":"S"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}}`,
	}
	wantName := []string{"=?base64?" + base64.StdEncoding.EncodeToString([]byte("test://héllo")) + "?=", "greet", ""}
	wantMethod := []string{"resources/read", "tools/call", "tools/list"}
	for i, want := range wantBodies {
		if rec.bodies[i] != want {
			t.Errorf("body %d\n got %s\nwant %s", i, rec.bodies[i], want)
		}
		h := rec.headers[i]
		if h.Get("Mcp-Protocol-Version") != "2026-07-28" || h.Get("Mcp-Method") != wantMethod[i] ||
			h.Get("Mcp-Name") != wantName[i] || h.Get("Authorization") != "Bearer t" ||
			h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json, text/event-stream" ||
			h.Get("Mcp-Session-Id") != "" {
			t.Errorf("request %d headers %v", i, h)
		}
		if _, named := h["Mcp-Name"]; named != (wantName[i] != "") {
			t.Errorf("request %d: Mcp-Name present %v", i, named)
		}
	}
	if strings.Join(seen, ",") != "resources/read,tools/call,tools/list" {
		t.Errorf("OnMessage request names %q", seen)
	}
}

func TestStatelessRequestCanBeAltered(t *testing.T) {
	rec := &recorder{answer: jsonAnswer}
	srv, _ := NewServer(t, rec, "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.Version = "v999.0.0"
	r := c.Request("server/discover", map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "2026-07-28"}})
	r.ID = jsonrpc.StringID("x")
	r.Header.Del("Mcp-Method")
	r.Header["mcp-method"] = []string{" server/discover "}
	delete(r.Meta(), mcp.MetaClientCapabilities)
	resp, err := c.Send(context.Background(), r)
	if err != nil || string(resp.ID) != `"x"` {
		t.Fatalf("Send = %+v, %v", resp, err)
	}
	n := c.Request("notifications/cancelled", nil)
	n.ID = nil
	n.Params = nil
	if _, err := c.Send(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if want := `{"jsonrpc":"2.0","id":"x","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`; rec.bodies[0] != want {
		t.Errorf("body %s, want %s", rec.bodies[0], want)
	}
	if h := rec.headers[0]; h.Get("Mcp-Protocol-Version") != "v999.0.0" || h.Get("Mcp-Method") != "server/discover" {
		t.Errorf("headers %v", h)
	}
	if want := `{"jsonrpc":"2.0","method":"notifications/cancelled"}`; rec.bodies[1] != want {
		t.Errorf("notification body %s, want %s", rec.bodies[1], want)
	}
}

func TestStatelessStreamRecordsServerRequestsWithoutAnsweringThem(t *testing.T) {
	rec := &recorder{answer: func(w http.ResponseWriter, m *jsonrpc.Message) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, ": comment\n\n")
		_, _ = io.WriteString(w, "data: "+string(jsonrpc.AppendRequest(nil, nil, "notifications/progress", json.RawMessage(`{"progressToken":"t","progress":1}`)))+"\n\n")
		_, _ = io.WriteString(w, "data: "+string(jsonrpc.AppendRequest(nil, jsonrpc.IntID(99), "roots/list", json.RawMessage(`{}`)))+"\n\n")
		_, _ = io.WriteString(w, "data: "+string(jsonrpc.AppendResult(nil, jsonrpc.IntID(98), json.RawMessage(`{"stale":true}`)))+"\n\n")
		_, _ = io.WriteString(w, "data: "+string(jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{"resultType":"complete"}`)))+"\n\n")
	}}
	srv, _ := NewServer(t, rec, "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	var seen int
	c.OnMessage = func(request string, _ []byte) {
		seen++
		if request != "tools/call" {
			t.Errorf("OnMessage request %q", request)
		}
	}
	_, resp, err := c.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Streamed || string(resp.ID) != "1" || string(resp.Result) != `{"resultType":"complete"}` {
		t.Errorf("response %+v", resp)
	}
	if len(resp.Notifications) != 1 || len(resp.Requests) != 1 || resp.Requests[0].Method != "roots/list" {
		t.Errorf("notifications %v requests %v", resp.Notifications, resp.Requests)
	}
	if seen != 4 {
		t.Errorf("OnMessage saw %d messages, want 4", seen)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bodies) != 1 {
		t.Errorf("the client posted %d times; a server request on a 2026-07-28 stream must not be answered", len(rec.bodies))
	}
}

func TestCommentCounterAcrossReads(t *testing.T) {
	const stream = ": one\n\ndata: {\"a\":\":\"}\n\n:two\n: three\n\ndata: x\n\n"
	var n atomic.Int64
	cc := &commentCounter{r: iotest.OneByteReader(strings.NewReader(stream)), bol: true, n: &n}
	if _, err := io.ReadAll(cc); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("counted %d comments, want 3", got)
	}
}

// newRouter is a small router for the client's own tests.
func newRouter(opts ...specter.RouterOption) *specter.Router {
	r := specter.NewRouter("mini", "0.1", append([]specter.RouterOption{specter.Logger(zerolog.Nop())}, opts...)...)
	r.Tool("greet", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		res, _, err := c.Elicit("Name?", params.Must(params.Raw([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`))), specter.InputKey("who"))
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply("Hello, " + res["name"].(string))
	}, specter.Description("Greets"))
	r.Tool("count", count, specter.Description("Counts"))
	return r
}

func shutdown(t *testing.T, r *specter.Router) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
}

func TestStatelessClientAgainstARouter(t *testing.T) {
	r := newRouter()
	shutdown(t, r)
	srv, _ := NewServer(t, r.Handler(), "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	resp, err := c.Call(ctx, "server/discover", nil)
	var disc mcp.DiscoverResult
	if err != nil || resp.Decode(&disc) != nil || len(disc.SupportedVersions) == 0 || disc.ResultType != "complete" {
		t.Fatalf("discover: %+v %v", resp, err)
	}

	round1, resp, err := c.CallTool(ctx, "greet", nil)
	if err != nil {
		t.Fatalf("round 1: %+v %v", resp, err)
	}
	q, ok := round1.InputRequests["who"]
	if round1.ResultType != "input_required" || !ok || q.Method != "elicitation/create" || round1.RequestState == "" {
		t.Fatalf("round 1 = %+v", round1)
	}
	done, resp, err := c.CallTool(ctx, "greet", nil, Retry(round1.RequestState,
		map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}))
	if err != nil || len(done.Content) != 1 || done.Content[0].(*mcp.TextContent).Text != "Hello, Ada" {
		t.Fatalf("round 2: %+v %v", resp, err)
	}

	resp, err = c.Call(ctx, "tools/call", map[string]any{"name": "count", "_meta": map[string]any{"progressToken": 5}})
	if err != nil || !resp.Streamed || len(resp.Notifications) != 3 || resp.Decode(&done) != nil || done.Content[0].(*mcp.TextContent).Text != "counted" {
		t.Fatalf("streamed call: %+v %v", resp, err)
	}

	c.Version = "v999.0.0"
	resp, err = c.Call(ctx, "server/discover", nil)
	if err != nil || resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeUnsupportedVersion {
		t.Fatalf("unsupported version: %+v %v", resp, err)
	}
}

func TestListen(t *testing.T) {
	r := newRouter(specter.KeepAlive(10 * time.Millisecond))
	shutdown(t, r)
	srv, _ := NewServer(t, r.Handler(), "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ack, err := s.Next(ctx)
	if err != nil || ack.Method != "notifications/subscriptions/acknowledged" || s.Status != http.StatusOK || string(s.ID) != "1" {
		t.Fatalf("ack %+v, %v", ack, err)
	}
	for r.Listeners() != 1 {
		time.Sleep(time.Millisecond)
	}
	r.NotifyToolsChanged()
	m, err := s.Next(ctx)
	if err != nil || m.Method != "notifications/tools/list_changed" {
		t.Fatalf("notification %+v, %v", m, err)
	}
	for s.Comments() < 2 {
		if ctx.Err() != nil {
			t.Fatal("no keep-alive comments")
		}
		time.Sleep(5 * time.Millisecond)
	}
	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	defer stop()
	if m, err := s.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next on a quiet stream = %+v, %v; want the context's error", m, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(ctx); !errors.Is(err, ErrSubscriptionClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	for r.Listeners() != 0 {
		if ctx.Err() != nil {
			t.Fatal("the router still counts the closed listener")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestListenEndsWithTheServerAndRefusals(t *testing.T) {
	r := newRouter()
	srv, _ := NewServer(t, r.Handler(), "/mcp")
	c := NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := c.Listen(ctx, mcp.SubscriptionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Next(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("after shutdown Next = %+v, %v; want io.EOF", m, err)
	}

	bad := c.Request("subscriptions/listen", map[string]any{"notifications": map[string]any{}})
	bad.Header.Set("Mcp-Method", "tools/list")
	_, err = c.Open(ctx, bad)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeHeaderMismatch {
		t.Errorf("mismatched listen: %v, want a -32020 error", err)
	}
	_, err = c.Open(ctx, c.Request("tools/list", nil))
	if err == nil || errors.As(err, &je) {
		t.Errorf("a plain JSON answer: %v, want an error saying it is no stream", err)
	}
}
