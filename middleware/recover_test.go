package middleware

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

const internalErrorBody = `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`

func TestRecoverPanic(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"string", "boom", "boom"},
		{"error", errors.New("bad thing"), "bad thing"},
		{"int", 42, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := Recover(zerolog.New(&buf))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
				panic(tt.value)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			if rec.Code != http.StatusInternalServerError {
				t.Errorf("status %d, want 500", rec.Code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if rec.Body.String() != internalErrorBody {
				t.Errorf("body %s", rec.Body)
			}
			lines := logLines(t, buf.String())
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1", len(lines))
			}
			l := lines[0]
			if l["level"] != "error" || l["panic"] != tt.want || l["http"] != "POST /mcp" {
				t.Errorf("log line %v", l)
			}
			stack, _ := l["stack"].(string)
			if !strings.Contains(stack, "goroutine ") || !strings.Contains(stack, "TestRecoverPanic") {
				t.Errorf("stack does not show the panicking goroutine: %q", stack)
			}
		})
	}
}

func TestRecoverAbortHandler(t *testing.T) {
	var buf bytes.Buffer
	h := Recover(zerolog.New(&buf))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	rec := httptest.NewRecorder()
	got := func() (v any) {
		defer func() { v = recover() }()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/mcp", nil))
		return nil
	}()
	if got != http.ErrAbortHandler {
		t.Errorf("recovered %v, want http.ErrAbortHandler", got)
	}
	if buf.Len() != 0 {
		t.Errorf("abort was logged: %s", buf.String())
	}
	if rec.Body.Len() != 0 {
		t.Errorf("abort wrote a body: %s", rec.Body)
	}
}

func TestRecoverAfterWrite(t *testing.T) {
	tests := []struct {
		name       string
		handler    func(w http.ResponseWriter)
		wantStatus int
		wantBody   string
	}{
		{"header written", func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) }, http.StatusAccepted, ""},
		{"body written", func(w http.ResponseWriter) { _, _ = io.WriteString(w, "partial") }, http.StatusOK, "partial"},
		{"header and body", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "data: x\n\n")
		}, http.StatusOK, "data: x\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := Recover(zerolog.New(&buf))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.handler(w)
				panic("late")
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if rec.Body.String() != tt.wantBody {
				t.Errorf("body %q, want %q", rec.Body, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct == "application/json" {
				t.Error("Content-Type changed to application/json")
			}
			if lines := logLines(t, buf.String()); len(lines) != 1 || lines[0]["panic"] != "late" {
				t.Errorf("log %v", lines)
			}
		})
	}
}

func TestRecoverNoPanic(t *testing.T) {
	var buf bytes.Buffer
	h := Recover(zerolog.New(&buf))(okHandler)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "ok" || buf.Len() != 0 {
		t.Errorf("%d %q log %q", rec.Code, rec.Body, buf.String())
	}
}

func TestRecoverSkipper(t *testing.T) {
	h := RecoverWithConfig(RecoverConfig{Skipper: func(*http.Request) bool { return true }})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("skipped")
	}))
	got := func() (v any) {
		defer func() { v = recover() }()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		return nil
	}()
	if got != "skipped" {
		t.Errorf("recovered %v, want the handler's panic", got)
	}
}

func TestRecoverServerKeepsRunning(t *testing.T) {
	var buf syncBuffer
	mux := http.NewServeMux()
	mux.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.Handle("/ok", okHandler)
	srv := httptest.NewServer(Recover(zerolog.New(&buf))(mux))
	defer srv.Close()
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/panic", http.StatusInternalServerError, internalErrorBody},
		{"/ok", http.StatusOK, "ok"},
		{"/panic", http.StatusInternalServerError, internalErrorBody},
	} {
		resp, err := srv.Client().Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(b) != tc.body {
			t.Errorf("%s: %d %s, want %d %s", tc.path, resp.StatusCode, b, tc.status, tc.body)
		}
	}
	srv.Close()
	if n := strings.Count(buf.String(), `"panic":"boom"`); n != 2 {
		t.Errorf("%d panics logged, want 2: %s", n, buf.String())
	}
}

func TestRecoverAfterFlushWritesNoSecondStatus(t *testing.T) {
	h := Recover(zerolog.Nop())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Error(err)
		}
		panic("after the stream started")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Fatalf("status %d body %q: a flushed response got a second status or body", rec.Code, rec.Body)
	}
}
