package specter_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
)

// TestWorkAfterShutdownIsRefused: once Shutdown began, a request whose
// work would outlive it (NoReply) is refused with a clear error instead
// of starting work that Shutdown no longer waits for.
func TestWorkAfterShutdownIsRefused(t *testing.T) {
	r := specter.NewRouter("bench", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply("Hello, Ada!") })
	}, specter.Description("Greet someone later"))
	call := statelessCall(r.Handler())
	if rec := call.serve(); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), benchWant[:len(benchWant)-1]) {
		t.Fatalf("before Shutdown: %d %s", rec.Code, rec.Body)
	}
	shutdown(t, r)
	rec := call.serve()
	if !bytes.Contains(rec.Body.Bytes(), []byte("the server is shutting down")) {
		t.Errorf("after Shutdown: %d %s, want the shutting-down refusal", rec.Code, rec.Body)
	}
}
