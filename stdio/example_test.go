package stdio_test

import (
	"context"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/stdio"
)

// A server on stdio reads one message per line and writes one per line.
// Here the input is a string; in a real server, Run serves the process's
// stdin and stdout.
func Example() {
	r := specter.NewRouter("greeter", "1.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name") + "!")
	}, specter.Description("Greets someone"), params.String("name", params.Required()))

	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}
`)
	srv := &stdio.Server{Handler: r}
	_ = srv.Serve(context.Background(), in, os.Stdout)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"greeter","version":"1.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}
}
