package client_test

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/stdio"
)

// pipeTransport is a transport of one's own: it serves an MCP server in
// the same process over an in-memory pipe. A socket works the same way:
// dial it, and hand the connection to client.StreamConn.
type pipeTransport struct {
	server http.Handler
}

func (p pipeTransport) Connect(ctx context.Context) (client.Conn, error) {
	ours, theirs := net.Pipe()
	go func() {
		// The server ends when the client closes its end.
		_ = (&stdio.Server{Handler: p.server}).Serve(context.Background(), theirs, theirs)
		theirs.Close()
	}()
	return client.StreamConn(ours, client.Lines), nil
}

// A Transport of one's own: anything with a Connect method that returns
// a Conn, which reads and writes JSON-RPC messages. StreamConn makes one
// of any byte stream, in newline or Content-Length framing.
func ExampleTransport() {
	r := weatherRouter()
	ctx := context.Background()
	c, err := client.Connect(ctx, pipeTransport{server: r}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	res, err := c.CallTool(ctx, "forecast", map[string]string{"city": "Lyon"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Version(), res.Content[0].(*mcp.TextContent).Text)
	// Output: 2026-07-28 {"city":"Lyon","celsius":21.5}
}
