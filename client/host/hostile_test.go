package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// hostileServer is a 2026-07-28 MCP server written for one test: page n
// of its tools/list (n from 1) is what tools says, its
// subscriptions/listen stream sends each method put on notify, and its
// other lists are empty. It counts the tools/list requests. With
// templates set, it declares resources, and page n of its
// resources/templates/list is what templates says.
type hostileServer struct {
	tools     func(n int32) (names []string, next string)
	templates func(n int32) (names []string, next string)
	notify    chan string
	lists     atomic.Int32
}

func (s *hostileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m jsonrpc.Message
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ID.IsZero() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch m.Method {
	case mcp.MethodDiscover:
		caps := map[string]any{"tools": map[string]any{"listChanged": true}}
		if s.templates != nil {
			caps["resources"] = map[string]any{}
		}
		result = map[string]any{
			"supportedVersions": []string{mcp.Version20260728},
			"capabilities":      caps,
			"serverInfo":        map[string]any{"name": "hostile", "version": "1"},
		}
	case mcp.MethodSubscriptionsListen:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case method := <-s.notify:
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":%q}\n\n", method)
			case <-r.Context().Done():
				return
			}
		}
	case mcp.MethodToolsList:
		names, next := s.tools(s.lists.Add(1))
		tools := make([]map[string]any, len(names))
		for i, name := range names {
			tools[i] = map[string]any{"name": name, "description": "A tool", "inputSchema": map[string]any{"type": "object"}}
		}
		result = map[string]any{"tools": tools, "nextCursor": next}
	case mcp.MethodResourceTemplatesList:
		var p mcp.PaginatedParams
		_ = json.Unmarshal(m.Params, &p)
		n, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "page-"))
		names, next := s.templates(int32(n + 1))
		templates := make([]map[string]any, len(names))
		for i, name := range names {
			templates[i] = map[string]any{"name": name, "uriTemplate": "file:///" + name + "/{path}"}
		}
		result = map[string]any{"resourceTemplates": templates, "nextCursor": next}
	default:
		result = map[string]any{"prompts": []any{}, "resources": []any{}}
	}
	b, _ := json.Marshal(result)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID, Result: b})
}

// TestEndlessPagination lists, and mounts, a server whose tools/list
// always has one more page: the Host's list and Mount fail once the
// client's page bound (1,000 by default) is passed, and the gateway
// declares none of the tools, rather than a list that looks whole.
func TestEndlessPagination(t *testing.T) {
	srv := &hostileServer{tools: func(n int32) ([]string, string) {
		if n >= 5000 {
			return []string{fmt.Sprint("t", n)}, ""
		}
		return []string{fmt.Sprint("t", n)}, fmt.Sprint("page-", n+1)
	}}
	h, err := host.New(t.Context(), []host.Server{{Name: "endless", Transport: client.InMemory(srv)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	tools, err := h.Tools(t.Context())
	if err == nil || !strings.Contains(err.Error(), "more than 1000 pages") {
		t.Errorf("%d tools, %v: want the page bound", len(tools), err)
	}
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
	err = gateway.Mount(t.Context(), h, gw)
	if err == nil || !strings.Contains(err.Error(), "more than 1000 pages") {
		t.Errorf("mount: %v, want the page bound", err)
	}
	c, err := client.Connect(t.Context(), client.InMemory(gw.Handler()), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if listed, err := c.ListTools(t.Context(), ""); err != nil || len(listed.Tools) != 0 {
		t.Errorf("the gateway lists %d tools (%v), want none", len(listed.Tools), err)
	}
	if n := srv.lists.Load(); n != 2000 {
		t.Errorf("%d tools/list requests, want 2000 (two lists of 1000 pages)", n)
	}
}

// TestEndlessTemplatePagination lists the resource templates of a server
// whose resources/templates/list always has one more page: the Host's
// list fails once the page bound is passed.
func TestEndlessTemplatePagination(t *testing.T) {
	endless := func(n int32) ([]string, string) { return []string{fmt.Sprint("t", n)}, fmt.Sprint("page-", n) }
	srv := &hostileServer{tools: func(int32) ([]string, string) { return nil, "" }, templates: endless}
	h, err := host.New(t.Context(), []host.Server{{Name: "endless", Transport: client.InMemory(srv), Options: &client.Options{MaxPages: 50}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	templates, err := h.ResourceTemplates(t.Context())
	if err == nil || !strings.Contains(err.Error(), "more than 50 pages") {
		t.Errorf("%d templates, %v: want the page bound", len(templates), err)
	}
}

// TestListChangedStorm sends a gateway 2,000 tools list_changed
// notifications while its refetch is held: one tools/list is in flight
// at a time, the rest fold into one pending refetch, and the gateway ends
// up with the server's latest tools.
func TestListChangedStorm(t *testing.T) {
	const storm = 2000
	release, served := make(chan struct{}), make(chan struct{}, storm)
	var inflight, most atomic.Int32
	srv := &hostileServer{notify: make(chan string), tools: func(n int32) ([]string, string) {
		if n == 1 {
			return []string{"a"}, "" // Mount's first list
		}
		now := inflight.Add(1)
		for old := most.Load(); now > old && !most.CompareAndSwap(old, now); old = most.Load() {
		}
		<-release
		inflight.Add(-1)
		served <- struct{}{}
		return []string{"a", "b"}, ""
	}}
	var heard atomic.Int32
	delivered := make(chan struct{})
	h, err := host.New(t.Context(), []host.Server{{Name: "s", Transport: client.InMemory(srv), Options: &client.Options{
		// Called after the Host's own handling of each notification.
		OnNotification: func(method string, _ json.RawMessage) {
			if method == mcp.NotificationToolsChanged && heard.Add(1) == storm {
				close(delivered)
			}
		},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
	if err := gateway.Mount(t.Context(), h, gw); err != nil {
		t.Fatal(err)
	}
	for range storm {
		srv.notify <- mcp.NotificationToolsChanged
	}
	<-delivered
	close(release)
	<-served // the refetch that was in flight
	<-served // the one pending
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d notifications: %d tools/list, %d at once at most", storm, srv.lists.Load(), most.Load())
	if n, m := srv.lists.Load(), most.Load(); n != 3 || m != 1 {
		t.Errorf("%d tools/list requests, %d at once: want 3 (Mount's, one in flight, one pending) and 1", n, m)
	}
	c, err := client.Connect(t.Context(), client.InMemory(gw.Handler()), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if listed, err := c.ListTools(t.Context(), ""); err != nil || len(listed.Tools) != 2 {
		t.Errorf("the gateway lists %+v (%v), want s.a and s.b", listed, err)
	}
}
