package client_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// hostile runs a hand-written MCP server for one test on loopback: every
// POSTed message is decoded and handed to h, which answers as the attack
// needs (handshake answers the handshake for it). GET and DELETE reach h
// with a nil message.
func hostile(t *testing.T, h func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h(w, r, nil)
			return
		}
		var m jsonrpc.Message
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h(w, r, &m)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// handshake answers what a hostile server answers like any other: the
// 2026-07-28 server/discover (with the tasks extension), a session-era
// initialize (session "s1"), and the client's notifications and responses
// (202). It reports whether m was one of those.
func handshake(w http.ResponseWriter, m *jsonrpc.Message) bool {
	switch {
	case m == nil:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case m.Method == mcp.MethodDiscover:
		reply(w, m.ID, map[string]any{
			"supportedVersions": []string{mcp.Version20260728},
			"capabilities":      map[string]any{"tools": map[string]any{}, "extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}},
			"serverInfo":        map[string]any{"name": "hostile", "version": "1.0.0"},
			"resultType":        mcp.ResultComplete,
		})
	case m.Method == mcp.MethodInitialize:
		w.Header().Set("Mcp-Session-Id", "s1")
		reply(w, m.ID, map[string]any{
			"protocolVersion": mcp.Version20251125,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile", "version": "1.0.0"},
		})
	case m.ID.IsZero() || m.Method == "":
		w.WriteHeader(http.StatusAccepted)
	default:
		return false
	}
	return true
}

// reply writes the JSON response to id with result.
func reply(w http.ResponseWriter, id jsonrpc.ID, result any) {
	b, _ := json.Marshal(result)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id, Result: b})
}

// TestSSEEventBound reads a response stream whose one event is far larger
// than the bound on events: the call fails with an error naming the bound,
// having allocated about the bound rather than the event. The bound is
// lowered to 1 MiB here; by default it is the 64 MiB of JSON answers and
// stdio lines.
func TestSSEEventBound(t *testing.T) {
	const event = 32 << 20
	url := hostile(t, func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if handshake(w, m) {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
		chunk := strings.Repeat("x", 64<<10)
		for range event / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client gave up, as it should
			}
		}
		io.WriteString(w, "\"}]}}\n\n")
	})
	tr := &client.HTTPTransport{URL: url}
	if got := client.EventLimit(tr); got != 64<<20 {
		t.Errorf("default event bound %d, want 64 MiB", got)
	}
	client.LimitEvents(tr, 1<<20)
	c := connect(t, tr, &client.Options{Version: mcp.Version20260728})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.CallTool(t.Context(), "big", nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("call: %v, want the event refused for its size", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d MiB event against a 1 MiB bound: %.1f MiB allocated", event>>20, float64(alloc)/(1<<20))
	if alloc > 8<<20 {
		t.Errorf("reading a %d MiB event allocated %.1f MiB, want at most 8 MiB for a 1 MiB bound", event>>20, float64(alloc)/(1<<20))
	}
}
