package middleware

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/internal/refusal"
)

// RecoverConfig configures Recover.
type RecoverConfig struct {
	// Skipper skips recovery for a request when it returns true.
	// Default: nil.
	Skipper func(*http.Request) bool
	// Logger receives the panic with its stack at error level.
	// Default: the zero Logger (nothing is written).
	Logger zerolog.Logger
}

// Recover turns a panic in the handler chain into a 500 answer with a
// generic JSON-RPC error, logging the detail; the server keeps running.
// The router already recovers panics in MCP handlers; this guards
// middleware and everything else in the chain.
func Recover(l zerolog.Logger) func(http.Handler) http.Handler {
	return RecoverWithConfig(RecoverConfig{Logger: l})
}

// RecoverWithConfig returns Recover with a config.
func RecoverWithConfig(cfg RecoverConfig) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.Skipper != nil && cfg.Skipper(r) {
				next.ServeHTTP(w, r)
				return
			}
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v) // the server's own way to abort a response
				}
				cfg.Logger.Error().Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).
					Str("http", r.Method+" "+r.URL.Path).Msg("recovered from panic")
				if !sw.wrote {
					refusal.Write(w, nil, refusal.Internal)
				}
			}()
			next.ServeHTTP(sw, r)
		})
	}
}
