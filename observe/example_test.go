package observe_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/observe"
)

// A callback that logs every request: method, the declaration that
// served it, the outcome and the JSON-RPC code.
func ExampleCallback() {
	logCall := observe.Callback(func(op observe.Op, e observe.End, took time.Duration) {
		if op.Kind == observe.Request && op.Method == "tools/call" {
			fmt.Printf("%s %q %s %d\n", op.Method, e.Declaration, e.Outcome, e.Code)
		}
	})
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()), specter.Instrument(logCall))
	r.Tool("ping", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("pong")
	}, specter.Description("Ping"))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())

	c := mcptest.NewStatelessClient(srv.URL)
	c.HTTP = srv.Client()
	_, _, _ = c.CallTool(context.Background(), "ping", nil)
	_, _, _ = c.CallTool(context.Background(), "pong", nil)
	// Output:
	// tools/call "ping" ok 0
	// tools/call "" error -32602
}
