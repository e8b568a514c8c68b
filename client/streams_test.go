package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
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

// TestCancellation gives up on a call: the server's work ends, through
// notifications/cancelled in a session and the request's end in
// 2026-07-28.
func TestCancellation(t *testing.T) {
	started, stopped := make(chan struct{}, 4), make(chan struct{}, 4)
	r := specter.NewRouter("slow", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("wait", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			started <- struct{}{}
			<-s.Done()
			stopped <- struct{}{}
			return specter.Reply("too late")
		})
	}, specter.Description("Waits until cancelled"))
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.Close()
	})
	for _, v := range []string{mcp.Version20260728, mcp.Version20251125} {
		t.Run(v, func(t *testing.T) {
			c := connect(t, &client.HTTPTransport{URL: srv.URL}, &client.Options{Version: v})
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				<-started
				cancel()
			}()
			if _, err := c.CallTool(ctx, "wait", nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("call: %v, want context.Canceled", err)
			}
			select {
			case <-stopped:
			case <-time.After(5 * time.Second):
				t.Fatal("the server's work did not end")
			}
		})
	}
}

// TestPagination follows nextCursor through every page of a list.
func TestPagination(t *testing.T) {
	r := specter.NewRouter("many", "1.0.0", specter.Logger(zerolog.Nop()), specter.PageSize(3))
	for i := range 10 {
		r.Tool(fmt.Sprintf("tool_%02d", i), func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("ok")
		}, specter.Description("One of many"))
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	for _, v := range []string{mcp.Version20260728, mcp.Version20251125} {
		t.Run(v, func(t *testing.T) {
			c := connect(t, client.InMemory(r.Handler()), &client.Options{Version: v})
			first, err := c.ListTools(t.Context(), "")
			if err != nil || len(first.Tools) != 3 || first.NextCursor == "" {
				t.Fatalf("first page: %+v %v", first, err)
			}
			var names []string
			for tool, err := range c.Tools(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if len(names) != 10 || names[0] != "tool_00" || names[9] != "tool_09" {
				t.Errorf("tools %v", names)
			}
		})
	}
}

// TestNegotiation reaches servers that offer fewer revisions: a
// session-only server is initialized with the newest revision it lists,
// and a pinned revision it lacks is an error, in either era.
func TestNegotiation(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		pin     string
		want    string // "" for an error
	}{
		{[]string{mcp.Version20250618, mcp.Version20250326}, "", mcp.Version20250618},
		{[]string{mcp.Version20251125, mcp.Version20260728}, "", mcp.Version20260728},
		{[]string{mcp.Version20251125}, mcp.Version20250618, ""},
		{[]string{mcp.Version20251125}, mcp.Version20260728, ""},
	} {
		t.Run(fmt.Sprint(tc.offered, tc.pin), func(t *testing.T) {
			r := specter.NewRouter("picky", "1.0.0", specter.Logger(zerolog.Nop()), specter.Versions(tc.offered...))
			r.Tool("ping", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
				return specter.Reply("pong")
			}, specter.Description("Pong"))
			t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
			c, err := client.Connect(t.Context(), client.InMemory(r.Handler()), &client.Options{Version: tc.pin})
			if tc.want == "" {
				if err == nil {
					_ = c.Close(context.Background())
					t.Fatalf("connected with %s", c.Version())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			if c.Version() != tc.want {
				t.Errorf("version %s, want %s", c.Version(), tc.want)
			}
			if _, err := c.CallTool(t.Context(), "ping", nil); err != nil {
				t.Error(err)
			}
		})
	}
}
