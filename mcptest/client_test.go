package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
)

// answer builds an *http.Response as a server would send it.
func answer(status int, contentType, body string) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		id          jsonrpc.ID
		wantID      string
		wantResult  string
		wantCode    int
		wantStatus  bool // a *StatusError
	}{
		{"json result", 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, ID(1), "1", `{"ok":true}`, 0, false},
		{"json result charset", 200, "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":"a","result":[]}`, jsonrpc.StringID("a"), `"a"`, `[]`, 0, false},
		{"json error 200", 200, "application/json", `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`, ID(2), "2", "", -32601, false},
		{"json error 400", 400, "application/json", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad params"}}`, ID(3), "3", "", -32602, false},
		{"json error 403 without id", 403, "application/json", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden"}}`, ID(4), "", "", -32600, false},
		{"json error 404 session", 404, "application/json", `{"jsonrpc":"2.0","id":5,"error":{"code":-32001,"message":"Session not found"}}`, ID(5), "5", "", -32001, false},
		{"empty 202", 202, "", ``, nil, "", "", 0, false},
		{"blank 202", 202, "application/json", " \n", nil, "", "", 0, false},
		{"empty 404", 404, "", ``, ID(1), "", "", 0, true},
		{"text 500", 500, "text/plain", `oops`, ID(1), "", "", 0, true},
		{"json array 400", 400, "application/json", `[1,2]`, ID(1), "", "", 0, true},
		{"text 200", 200, "text/plain", `hello`, ID(1), "", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient("http://unused.invalid/mcp")
			var seen []string
			c.OnMessage = func(_ string, msg []byte) { seen = append(seen, string(msg)) }
			resp, err := c.ReadAnswer(answer(tt.status, tt.contentType, tt.body), tt.id)
			if tt.wantStatus {
				var se *StatusError
				if !errors.As(err, &se) {
					t.Fatalf("err %v, want *StatusError", err)
				}
				if se.Status != tt.status || string(se.Body) != tt.body {
					t.Errorf("StatusError %d %q", se.Status, se.Body)
				}
				if !strings.Contains(se.Error(), fmt.Sprint(tt.status)) {
					t.Errorf("Error() %q does not name the status", se.Error())
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadAnswer: %v", err)
			}
			if resp.Status != tt.status || resp.Streamed || string(resp.Body) != tt.body {
				t.Errorf("status %d streamed %v body %q", resp.Status, resp.Streamed, resp.Body)
			}
			if string(resp.ID) != tt.wantID {
				t.Errorf("ID %q, want %q", resp.ID, tt.wantID)
			}
			if string(resp.Result) != tt.wantResult {
				t.Errorf("Result %s, want %s", resp.Result, tt.wantResult)
			}
			switch {
			case tt.wantCode == 0 && resp.Error != nil:
				t.Errorf("Error %+v", resp.Error)
			case tt.wantCode != 0 && (resp.Error == nil || resp.Error.Code != tt.wantCode):
				t.Errorf("Error %+v, want code %d", resp.Error, tt.wantCode)
			}
			if tt.wantCode != 0 {
				var e *jsonrpc.Error
				if err := resp.Decode(new(any)); !errors.As(err, &e) || e.Code != tt.wantCode {
					t.Errorf("Decode error %v", err)
				}
			}
			if strings.HasPrefix(tt.body, "{") && (len(seen) != 1 || seen[0] != tt.body) {
				t.Errorf("OnMessage saw %q", seen)
			}
		})
	}
}

func TestResponseDecode(t *testing.T) {
	r := &Response{Status: 200, Result: json.RawMessage(`{"n":3}`)}
	var v struct{ N int }
	if err := r.Decode(&v); err != nil || v.N != 3 {
		t.Errorf("Decode = %+v, %v", v, err)
	}
	empty := &Response{Status: 202}
	if err := empty.Decode(&v); err == nil || !strings.Contains(err.Error(), "202") {
		t.Errorf("Decode of no result: %v", err)
	}
}

// sseServer answers tools/call with an event stream that sends a
// priming event, a notification and a server request, waits for the
// client's answer to that request, then sends the response.
type sseServer struct {
	t       *testing.T
	answers chan *jsonrpc.Message
	// stale makes the stream send a response to another id first.
	stale bool
	// end makes the stream end without the response.
	end      bool
	mu       sync.Mutex
	got      []http.Header
	answered *jsonrpc.Message
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.got = append(s.got, r.Header.Clone())
	s.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	msgs, _, err := jsonrpc.Parse(body)
	if err != nil || len(msgs) != 1 {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	m := msgs[0]
	switch m.Kind() {
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		s.answers <- m
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindRequest:
	default:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(s string) {
		_, _ = io.WriteString(w, s)
		_ = rc.Flush()
	}
	send("id: e0\nretry: 1000\ndata: \n\n")
	send(`id: e1` + "\nevent: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}` + "\n\n")
	if s.stale {
		send("data: " + `{"jsonrpc":"2.0","id":999,"result":{"stale":true}}` + "\n\n")
	}
	send("id: e2\nevent: message\ndata: " + `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}}` + "\n\n")
	if s.end {
		return
	}
	select {
	case a := <-s.answers:
		s.mu.Lock()
		s.answered = a
		s.mu.Unlock()
	case <-r.Context().Done():
		return
	case <-time.After(10 * time.Second):
		s.t.Error("the client never answered the server request")
		return
	}
	send("id: e3\nevent: message\ndata: " + string(jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{"done":true}`))) + "\n\n")
}

func TestCallStreamWithServerRequest(t *testing.T) {
	tests := []struct {
		name      string
		onRequest RequestHandler
		want      string // the client's answer to the server request
	}{
		{"answered", func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
			if method != "roots/list" || string(params) != `{}` {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unexpected %s %s", method, params)
			}
			return map[string]any{"roots": []any{}}, nil
		}, `{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[]}}`},
		{"refused", func(string, json.RawMessage) (any, *jsonrpc.Error) {
			return nil, jsonrpc.Errorf(-1, "user declined")
		}, `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-1,"message":"user declined"}}`},
		{"unencodable result", func(string, json.RawMessage) (any, *jsonrpc.Error) {
			return make(chan int), nil
		}, `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32603,"message":"json: unsupported type: chan int"}}`},
		{"no handler", nil, `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32601,"message":"mcptest: no OnRequest handler"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &sseServer{t: t, answers: make(chan *jsonrpc.Message, 1)}
			_, c := NewServer(t, srv, "/mcp")
			c.OnRequest = tt.onRequest
			c.SessionID, c.Version = "sess-1", "2025-06-18"
			c.Header.Set("Authorization", "Bearer t")
			var observed []string
			c.OnMessage = func(request string, msg []byte) { observed = append(observed, request) }
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := c.Call(ctx, "tools/call", map[string]any{"name": "slow"})
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if !resp.Streamed || resp.Status != http.StatusOK {
				t.Errorf("streamed %v status %d", resp.Streamed, resp.Status)
			}
			if string(resp.ID) != "1" || string(resp.Result) != `{"done":true}` || resp.Error != nil {
				t.Errorf("response id %s result %s error %v", resp.ID, resp.Result, resp.Error)
			}
			if len(resp.Requests) != 1 || resp.Requests[0].Method != "roots/list" || string(resp.Requests[0].ID) != `"srv-1"` {
				t.Errorf("requests %+v", resp.Requests)
			}
			if len(resp.Notifications) != 1 || resp.Notifications[0].Method != "notifications/progress" {
				t.Errorf("notifications %+v", resp.Notifications)
			}
			var ids []string
			for _, ev := range resp.Events {
				ids = append(ids, ev.ID)
			}
			if strings.Join(ids, ",") != "e0,e1,e2,e3" {
				t.Errorf("event ids %v", ids)
			}
			if p := resp.Events[0]; p.Data != "" || p.Retry != time.Second {
				t.Errorf("priming event %+v", p)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if srv.answered == nil {
				t.Fatal("no answer reached the server")
			}
			b, err := json.Marshal(srv.answered)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("client answered %s, want %s", b, tt.want)
			}
			if want := []string{"", "", "tools/call"}; strings.Join(observed, "|") != strings.Join(want, "|") {
				t.Errorf("OnMessage request names %q, want %q", observed, want)
			}
			if len(srv.got) != 2 {
				t.Fatalf("server got %d requests, want 2", len(srv.got))
			}
			for _, h := range srv.got {
				if h.Get("Mcp-Session-Id") != "sess-1" || h.Get("Mcp-Protocol-Version") != "2025-06-18" ||
					h.Get("Authorization") != "Bearer t" || h.Get("Content-Type") != "application/json" ||
					h.Get("Accept") != "application/json, text/event-stream" {
					t.Errorf("request headers %v", h)
				}
			}
		})
	}
}

func TestCallStreamSkipsOtherResponses(t *testing.T) {
	srv := &sseServer{t: t, answers: make(chan *jsonrpc.Message, 1), stale: true}
	_, c := NewServer(t, srv, "/mcp")
	c.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) { return struct{}{}, nil }
	resp, err := c.Call(context.Background(), "tools/call", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.ID) != "1" || string(resp.Result) != `{"done":true}` {
		t.Errorf("took the wrong response: id %s result %s", resp.ID, resp.Result)
	}
}

func TestCallStreamEnded(t *testing.T) {
	srv := &sseServer{t: t, answers: make(chan *jsonrpc.Message, 1), end: true}
	_, c := NewServer(t, srv, "/mcp")
	c.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) { return struct{}{}, nil }
	resp, err := c.Call(context.Background(), "tools/call", nil)
	if !errors.Is(err, ErrStreamEnded) {
		t.Fatalf("err %v, want ErrStreamEnded", err)
	}
	if resp == nil || len(resp.Requests) != 1 || resp.Result != nil {
		t.Errorf("resp %+v", resp)
	}
	// The client still answers the server request on its own goroutine.
	select {
	case m := <-srv.answers:
		if string(m.ID) != `"srv-1"` {
			t.Errorf("answer id %s", m.ID)
		}
	case <-time.After(10 * time.Second):
		t.Error("no answer to the server request")
	}
}

func TestCallJSONAndNotify(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		msgs, _, err := jsonrpc.Parse(b)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(jsonrpc.AppendError(nil, nil, err.(*jsonrpc.Error)))
			return
		}
		m := msgs[0]
		if m.Kind() != jsonrpc.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{"method":"`+m.Method+`"}`)))
	})
	_, c := NewServer(t, h, "/mcp")
	var requests []string
	c.OnMessage = func(request string, _ []byte) { requests = append(requests, request) }
	ctx := context.Background()
	for i, method := range []string{"tools/list", "ping"} {
		resp, err := c.Call(ctx, method, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(i + 1); string(resp.ID) != want {
			t.Errorf("id %s, want %s", resp.ID, want)
		}
		if want := `{"method":"` + method + `"}`; string(resp.Result) != want || resp.Streamed {
			t.Errorf("result %s streamed %v", resp.Result, resp.Streamed)
		}
	}
	if strings.Join(requests, ",") != "tools/list,ping" {
		t.Errorf("OnMessage request names %q", requests)
	}
	status, err := c.Notify(ctx, "notifications/initialized", nil)
	if err != nil || status != http.StatusAccepted {
		t.Errorf("Notify = %d, %v", status, err)
	}
	resp, err := c.PostRaw(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`), nil)
	if err != nil || resp.Status != http.StatusAccepted || len(resp.Body) != 0 || resp.Result != nil {
		t.Errorf("PostRaw notification = %+v, %v", resp, err)
	}
	resp, err = c.PostRaw(ctx, []byte(`{"jsonrpc":`), nil)
	if err != nil || resp.Status != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != jsonrpc.CodeParseError || !resp.ID.IsZero() {
		t.Errorf("PostRaw garbage = %+v, %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, w := range want {
		if bodies[i] != w {
			t.Errorf("body %d = %s, want %s", i, bodies[i], w)
		}
	}
}
