package direct_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/params"
)

// An app with a transport of its own hands each message it reads to the
// connection, and writes what comes out of out back to its peer.
func Example() {
	r := specter.NewRouter("greeter", "1.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name") + "!")
	}, specter.Description("Greets someone"), params.String("name", params.Required()))

	answers := make(chan string, 1)
	conn := direct.Open(r, func(msg []byte) { answers <- string(msg) }, direct.Config{})
	_ = conn.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	fmt.Println(<-answers)
	_ = conn.Close(context.Background())
	_ = r.Shutdown(context.Background())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0"}}}}
}
