package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// logLines decodes the JSON lines written to buf.
func logLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(s) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %q", err, line)
		}
		out = append(out, m)
	}
	return out
}

// serveLogged runs h under RequestLog(cfg) for one request and returns
// the log lines.
func serveLogged(t *testing.T, cfg RequestLogConfig, method, target string, h http.HandlerFunc) (*httptest.ResponseRecorder, []map[string]any, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	cfg.Logger = zerolog.New(&buf)
	rec := httptest.NewRecorder()
	RequestLogWithConfig(cfg)(h).ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec, logLines(t, buf.String()), &buf
}

func TestRequestLogMessages(t *testing.T) {
	msgs := []Message{
		{Method: "tools/call", Name: "echo", ID: "1", Session: "s1", Principal: "alice", Duration: 1500 * time.Microsecond},
		{Method: "notifications/initialized", Session: "s1"},
		{Method: "resources/read", Name: "file:///x", ID: `"abc"`, Code: -32002, Duration: 2 * time.Millisecond},
	}
	rec, lines, _ := serveLogged(t, RequestLogConfig{}, http.MethodPost, "/mcp?x=1", func(w http.ResponseWriter, r *http.Request) {
		for _, m := range msgs {
			Note(r.Context(), m)
		}
		w.WriteHeader(http.StatusOK)
	})
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	if len(lines) != len(msgs) {
		t.Fatalf("%d lines, want %d: %v", len(lines), len(msgs), lines)
	}
	want := []map[string]any{
		{"level": "info", "http": "POST /mcp", "method": "tools/call", "name": "echo", "id": 1.0, "session": "s1", "principal": "alice", "status": 200.0, "duration": 1.5, "message": "mcp message"},
		{"level": "info", "http": "POST /mcp", "method": "notifications/initialized", "session": "s1", "status": 200.0, "duration": 0.0, "message": "mcp message"},
		{"level": "warn", "http": "POST /mcp", "method": "resources/read", "name": "file:///x", "id": "abc", "code": -32002.0, "status": 200.0, "duration": 2.0, "message": "mcp message"},
	}
	for i := range want {
		for k, v := range want[i] {
			if lines[i][k] != v {
				t.Errorf("line %d: %s = %#v, want %#v", i, k, lines[i][k], v)
			}
		}
		for k := range lines[i] {
			if _, ok := want[i][k]; !ok {
				t.Errorf("line %d: unexpected field %s = %v", i, k, lines[i][k])
			}
		}
	}
}

func TestRequestLogStatusAndLevel(t *testing.T) {
	tests := []struct {
		name      string
		debug     bool
		status    int // 0: the handler writes nothing
		code      int
		noMessage bool
		level     string
	}{
		{"ok", false, http.StatusOK, 0, false, "info"},
		{"accepted", false, http.StatusAccepted, 0, false, "info"},
		{"implicit 200", false, 0, 0, false, "info"},
		{"debug level", true, http.StatusOK, 0, false, "debug"},
		{"zero config means info", false, http.StatusOK, 0, false, "info"},
		{"jsonrpc error", false, http.StatusOK, -32602, false, "warn"},
		{"http 400", false, http.StatusBadRequest, 0, false, "warn"},
		{"http 500 debug config", true, http.StatusInternalServerError, 0, false, "warn"},
		{"no message ok", false, http.StatusOK, 0, true, "info"},
		{"no message 405", false, http.StatusMethodNotAllowed, 0, true, "warn"},
		{"no message 403", true, http.StatusForbidden, 0, true, "warn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, lines, _ := serveLogged(t, RequestLogConfig{DebugSuccess: tt.debug}, http.MethodGet, "/mcp", func(w http.ResponseWriter, r *http.Request) {
				if !tt.noMessage {
					Note(r.Context(), Message{Method: "ping", ID: "7", Code: tt.code})
				}
				if tt.status != 0 {
					w.WriteHeader(tt.status)
				}
			})
			if len(lines) != 1 {
				t.Fatalf("%d lines, want 1: %v", len(lines), lines)
			}
			l := lines[0]
			if l["level"] != tt.level {
				t.Errorf("level %v, want %s", l["level"], tt.level)
			}
			wantStatus := float64(tt.status)
			if tt.status == 0 {
				wantStatus = 200
			}
			if l["status"] != wantStatus {
				t.Errorf("status %v, want %v", l["status"], wantStatus)
			}
			if l["http"] != "GET /mcp" {
				t.Errorf("http %v", l["http"])
			}
			if _, ok := l["duration"].(float64); !ok {
				t.Errorf("duration %v is not a number", l["duration"])
			}
			wantMsg := "mcp message"
			if tt.noMessage {
				wantMsg = "mcp request"
				if _, ok := l["method"]; ok {
					t.Errorf("request line has a method: %v", l)
				}
			}
			if l["message"] != wantMsg {
				t.Errorf("message %v, want %s", l["message"], wantMsg)
			}
		})
	}
}

func TestRequestLogNoteAfterEnd(t *testing.T) {
	var ctx context.Context
	_, lines, buf := serveLogged(t, RequestLogConfig{}, http.MethodPost, "/mcp", func(w http.ResponseWriter, r *http.Request) {
		ctx = r.Context()
		Note(ctx, Message{Method: "tools/call", Name: "slow", ID: "3"})
		w.WriteHeader(http.StatusOK)
	})
	if len(lines) != 1 {
		t.Fatalf("%d lines before the late note, want 1", len(lines))
	}
	// Work that outlived the request is logged at once, without status.
	Note(ctx, Message{Method: "notifications/progress", Session: "s9"})
	lines = logLines(t, buf.String())
	if len(lines) != 2 {
		t.Fatalf("%d lines after the late note, want 2", len(lines))
	}
	late := lines[1]
	if late["method"] != "notifications/progress" || late["session"] != "s9" || late["http"] != "POST /mcp" {
		t.Errorf("late line %v", late)
	}
	if _, ok := late["status"]; ok {
		t.Errorf("late line has a status: %v", late)
	}
	Note(ctx, Message{Method: "tools/call", Code: -32603})
	lines = logLines(t, buf.String())
	if len(lines) != 3 || lines[2]["level"] != "warn" || lines[2]["code"] != -32603.0 {
		t.Errorf("late failure line: %v", lines)
	}
}

func TestRequestLogConcurrentNotes(t *testing.T) {
	const n = 20
	_, lines, _ := serveLogged(t, RequestLogConfig{}, http.MethodPost, "/mcp", func(w http.ResponseWriter, r *http.Request) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { Note(r.Context(), Message{Method: "ping", ID: strconv.Itoa(i)}) })
		}
		wg.Wait()
	})
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	seen := map[float64]bool{}
	for _, l := range lines {
		id, _ := l["id"].(float64)
		seen[id] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct ids, want %d", len(seen), n)
	}
}

func TestRequestLogSkipper(t *testing.T) {
	called := false
	_, lines, _ := serveLogged(t, RequestLogConfig{Skipper: func(r *http.Request) bool { return r.URL.Path == "/health" }}, http.MethodGet, "/health", func(w http.ResponseWriter, r *http.Request) {
		called = true
		Note(r.Context(), Message{Method: "ping"})
	})
	if !called {
		t.Error("handler not called")
	}
	if len(lines) != 0 {
		t.Errorf("skipped request logged: %v", lines)
	}
}

func TestNoteWithoutRequestLog(t *testing.T) {
	// Nothing to record into: Note must simply do nothing.
	Note(context.Background(), Message{Method: "ping"})
}

func TestRequestLogFlushThroughWriter(t *testing.T) {
	var flushErr error
	rec, lines, _ := serveLogged(t, RequestLogConfig{}, http.MethodGet, "/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(": hi\n\n"))
		flushErr = http.NewResponseController(w).Flush()
	})
	if flushErr != nil {
		t.Fatalf("Flush: %v", flushErr)
	}
	if !rec.Flushed {
		t.Error("the recorder was not flushed")
	}
	if rec.Body.String() != ": hi\n\n" {
		t.Errorf("body %q", rec.Body)
	}
	if len(lines) != 1 {
		t.Errorf("%d lines", len(lines))
	}
}

func TestFlushThroughChain(t *testing.T) {
	var buf bytes.Buffer
	l := zerolog.New(&buf)
	var flushErr error
	h := Recover(l)(RequestLog(l)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flushErr = http.NewResponseController(w).Flush()
	})))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if flushErr != nil || !rec.Flushed {
		t.Errorf("Flush through Recover and RequestLog: err %v, flushed %v", flushErr, rec.Flushed)
	}
}

func TestStatusWriterFirstStatusWins(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := &statusWriter{ResponseWriter: rec, status: http.StatusOK}
	sw.WriteHeader(http.StatusAccepted)
	sw.WriteHeader(http.StatusInternalServerError)
	if sw.status != http.StatusAccepted || !sw.wrote {
		t.Errorf("status %d wrote %v, want 202 true", sw.status, sw.wrote)
	}
	sw2 := &statusWriter{ResponseWriter: httptest.NewRecorder(), status: http.StatusOK}
	if _, err := sw2.Write([]byte("x")); err != nil || !sw2.wrote || sw2.status != http.StatusOK {
		t.Errorf("after Write: status %d wrote %v err %v", sw2.status, sw2.wrote, err)
	}
	if sw.Unwrap() != rec {
		t.Error("Unwrap does not return the wrapped writer")
	}
}
