package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/middleware"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLogSeesTheRoutersMessages: the router notes each MCP message
// for a middleware.RequestLog in front of it, without importing it.
func TestRequestLogSeesTheRoutersMessages(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("add", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("ok")
	}, specter.Description("Adds"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	var logs lockedBuffer
	_, c := mcptest.NewServer(t, middleware.RequestLog(zerolog.New(&logs))(r.Handler()), "/mcp")
	if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CallTool(ctx(t), "add", nil); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["method"] == "tools/call" {
			found = m["name"] == "add" && m["session"] != nil && m["status"] == float64(200)
		}
	}
	if !found {
		t.Errorf("no tools/call line for add with its session and status:\n%s", logs.String())
	}
}
