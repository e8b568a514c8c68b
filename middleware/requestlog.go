package middleware

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/internal/reqctx"
)

// Message is one MCP message as the request log reports it. The router
// records one per JSON-RPC message.
type Message struct {
	Method    string        // JSON-RPC method ("tools/call"); "response" for a client's answer
	Name      string        // tool or prompt name, or resource URI
	ID        string        // JSON-RPC id, raw
	Session   string        // Mcp-Session-Id
	Principal string        // authenticated caller, when known
	Code      int           // JSON-RPC error code; 0 on success
	Duration  time.Duration // time to the final answer
}

// RequestLogConfig configures RequestLog.
type RequestLogConfig struct {
	// Skipper skips logging for a request when it returns true.
	// Default: nil (log every request).
	Skipper func(*http.Request) bool
	// Logger receives the lines. Default: the zero Logger, which writes
	// nothing; set it.
	Logger zerolog.Logger
	// DebugSuccess logs successful lines at debug instead of info.
	// Failures (HTTP status >= 400 or a JSON-RPC error) log at warn.
	// Default: false.
	DebugSuccess bool
}

// RequestLog logs one structured line per MCP message: MCP method,
// tool/prompt/URI, session, principal, JSON-RPC code, HTTP status and
// duration. Requests that carry no MCP message (a refused request, a GET
// stream) get one line for the HTTP request.
func RequestLog(l zerolog.Logger) func(http.Handler) http.Handler {
	return RequestLogWithConfig(RequestLogConfig{Logger: l})
}

// RequestLogWithConfig returns RequestLog with a config.
func RequestLogWithConfig(cfg RequestLogConfig) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.Skipper != nil && cfg.Skipper(r) {
				next.ServeHTTP(w, r)
				return
			}
			start := time.Now()
			rec := &recorder{cfg: &cfg, http: r.Method + " " + r.URL.Path}
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			rec.status = func() int { return sw.status }
			// Deferred, so a request whose handler panics is still logged.
			defer func() { rec.finish(time.Since(start)) }()
			next.ServeHTTP(sw, r.WithContext(reqctx.WithSink(r.Context(), rec)))
		})
	}
}

// recorder collects the messages of one HTTP request. Messages noted
// after the request ended (work that outlived its connection) are logged
// at once.
type recorder struct {
	cfg    *RequestLogConfig
	http   string
	status func() int
	mu     sync.Mutex
	msgs   []Message
	done   bool
}

// Note records an MCP message for the request log, if RequestLog is in
// the chain; otherwise it does nothing. The router notes its messages
// itself.
func Note(ctx context.Context, m Message) { reqctx.Note(ctx, reqctx.Message(m)) }

// Note implements reqctx.Sink.
func (rec *recorder) Note(nm reqctx.Message) {
	m := Message(nm)
	rec.mu.Lock()
	if !rec.done {
		rec.msgs = append(rec.msgs, m)
		rec.mu.Unlock()
		return
	}
	rec.mu.Unlock()
	rec.line(m, 0)
}

func (rec *recorder) finish(d time.Duration) {
	rec.mu.Lock()
	msgs := rec.msgs
	rec.done = true
	rec.mu.Unlock()
	if len(msgs) == 0 {
		status := rec.status()
		ev := rec.cfg.Logger.WithLevel(rec.level(status, 0))
		ev.Str("http", rec.http).Int("status", status).Dur("duration", d).Msg("mcp request")
		return
	}
	for _, m := range msgs {
		rec.line(m, rec.status())
	}
}

func (rec *recorder) level(status, code int) zerolog.Level {
	if status >= 400 || code != 0 {
		return zerolog.WarnLevel
	}
	if rec.cfg.DebugSuccess {
		return zerolog.DebugLevel
	}
	return zerolog.InfoLevel
}

func (rec *recorder) line(m Message, status int) {
	ev := rec.cfg.Logger.WithLevel(rec.level(status, m.Code)).Str("http", rec.http).Str("method", m.Method)
	if m.Name != "" {
		ev = ev.Str("name", m.Name)
	}
	if m.ID != "" {
		ev = ev.RawJSON("id", []byte(m.ID))
	}
	if m.Session != "" {
		ev = ev.Str("session", m.Session)
	}
	if m.Principal != "" {
		ev = ev.Str("principal", m.Principal)
	}
	if status != 0 {
		ev = ev.Int("status", status)
	}
	if m.Code != 0 {
		ev = ev.Int("code", m.Code)
	}
	ev.Dur("duration", m.Duration).Msg("mcp message")
}

// statusWriter remembers the status code. Unwrap keeps Flush and write
// deadlines reachable through http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush commits the response like a write does, so Recover knows the
// status line is gone.
func (w *statusWriter) Flush() {
	w.wrote = true
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}
