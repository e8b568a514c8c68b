package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// TestContentLengthStdio drives a server that frames its messages with
// Content-Length headers, as the Language Server Protocol does: Specter's
// fixture over stdio in that framing, in each era.
func TestContentLengthStdio(t *testing.T) {
	eras(t, func(t *testing.T, v string) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), stdioServerEnv+"=specter-content-length")
		cmd.Stderr = os.Stderr
		c := connect(t, &client.CommandTransport{Cmd: cmd, Framing: client.ContentLength}, handlers(&client.Options{Version: v}))
		for tool, want := range map[string]string{
			"test_simple_text": "This is a simple text response for testing.",
			"test_sampling":    "LLM response: Paris",
		} {
			res, err := c.CallTool(t.Context(), tool, map[string]string{"prompt": "Capital of France?"})
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			if got := text(t, res); got != want {
				t.Errorf("%s: %q, want %q", tool, got, want)
			}
		}
	})
}

// TestHTTPConn speaks the protocol through HTTPTransport's plain Conn, in
// a session and on 2026-07-28: responses come back in order with what the
// server sent before them.
func TestHTTPConn(t *testing.T) {
	r := fixture.New(specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	ctx := t.Context()
	for _, stateless := range []bool{false, true} {
		conn, err := client.InMemory(r.Handler()).Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		write := func(id int64, method string, params string) {
			t.Helper()
			m := &jsonrpc.Message{JSONRPC: jsonrpc.Version, Method: method, Params: json.RawMessage(params)}
			if id != 0 {
				m.ID = jsonrpc.IntID(id)
			}
			if err := conn.Write(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		read := func() *jsonrpc.Message {
			t.Helper()
			m, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		envelope := ""
		if stateless {
			envelope = `,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}`
		} else {
			write(1, mcp.MethodInitialize, `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
			if m := read(); m.Error != nil || !strings.Contains(string(m.Result), `"protocolVersion":"2025-11-25"`) {
				t.Fatalf("initialize: %+v", m)
			}
			write(0, mcp.NotificationInitialized, `{}`)
		}
		write(2, mcp.MethodToolsCall, `{"name":"test_tool_with_progress","_meta":{"progressToken":"p"`+envelope+`}}`)
		var progress int
		for m := read(); ; m = read() {
			if m.Method == mcp.NotificationProgress {
				progress++
				continue
			}
			if m.ID.Key() != jsonrpc.IntID(2).Key() || m.Error != nil || progress != 3 {
				t.Fatalf("stateless %v: %+v after %d progress notifications", stateless, m, progress)
			}
			break
		}
		if err := conn.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
