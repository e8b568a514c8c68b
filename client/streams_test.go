package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// TestResumeAfterDroppedStream calls a Specter tool that closes its
// response stream before answering: the client resumes with GET and
// Last-Event-ID and gets the answer from the session's buffer.
func TestResumeAfterDroppedStream(t *testing.T) {
	c := connect(t, &client.HTTPTransport{URL: serve(t)}, &client.Options{Version: mcp.Version20251125})
	res, err := c.CallTool(t.Context(), "test_reconnection", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "Reconnection test completed successfully" {
		t.Errorf("got %q", got)
	}
}

// TestParamHeaders sends a tool's x-mcp-header argument as its
// Mcp-Param-* header; Specter refuses a call whose header is missing or
// differs from the argument.
func TestParamHeaders(t *testing.T) {
	c := connect(t, &client.HTTPTransport{URL: serve(t)}, nil)
	if _, err := c.ListTools(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(t.Context(), "test_x_mcp_header", map[string]any{"region": "eu-west-1", "level": 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "region=eu-west-1" {
		t.Errorf("got %q", got)
	}
}

// TestListen receives list_changed notifications on a 2026-07-28
// subscriptions/listen stream.
func TestListen(t *testing.T) {
	changed := make(chan string, 16)
	c := connect(t, &client.HTTPTransport{URL: serve(t)}, &client.Options{
		OnNotification: func(method string, _ json.RawMessage) { changed <- method },
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}) }()
	// The stream opens in its own time: trigger until a notification
	// comes through it.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
wait:
	for {
		select {
		case m := <-changed:
			// The stream's first message acknowledges the subscription.
			if m == mcp.NotificationToolsChanged {
				break wait
			}
		case <-tick.C:
			if _, err := c.CallTool(t.Context(), "test_trigger_tool_change", nil); err != nil {
				t.Fatal(err)
			}
		case err := <-done:
			t.Fatalf("listen ended: %v", err)
		case <-deadline:
			t.Fatal("no notification through the listen stream")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("listen: %v, want context.Canceled", err)
	}
}
