package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// TestSessionAfterRestart: a Specter server restarts and forgets its
// sessions (404 to the old one); the client starts a new session, and its
// call goes through.
func TestSessionAfterRestart(t *testing.T) {
	serve := func() *specter.Router {
		r := specter.NewRouter("restarting", "1.0.0", specter.Logger(zerolog.Nop()))
		r.Tool("echo", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("echo")
		}, specter.Description("Echoes"))
		t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
		return r
	}
	var current atomic.Pointer[specter.Router]
	current.Store(serve())
	var initializes atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Session-Id") == "" && req.Method == http.MethodPost {
			initializes.Add(1)
		}
		current.Load().Handler().ServeHTTP(w, req)
	})
	c := connect(t, client.InMemory(h), &client.Options{Version: mcp.Version20251125})
	for run := range 2 {
		res, err := c.CallTool(t.Context(), "echo", nil)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := text(t, res); got != "echo" {
			t.Errorf("run %d: %q", run, got)
		}
		current.Store(serve()) // the restart
	}
	if n := initializes.Load(); n != 2 {
		t.Errorf("%d sessions initialized, want 2", n)
	}
}

// TestNotFoundWithoutSession: a 404 to a request that carried no session
// (a server without sessions) starts none; the caller gets the status.
func TestNotFoundWithoutSession(t *testing.T) {
	var initializes atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var m jsonrpc.Message
		_ = json.NewDecoder(req.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case mcp.MethodInitialize:
			initializes.Add(1)
			res, _ := json.Marshal(mcp.InitializeResult{ProtocolVersion: mcp.Version20251125, ServerInfo: mcp.Implementation{Name: "sessionless", Version: "1"}})
			_ = json.NewEncoder(w).Encode(jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID, Result: res})
		case mcp.NotificationInitialized:
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID, Error: jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "no %s here", m.Method)})
		}
	})
	c := connect(t, client.InMemory(h), &client.Options{Version: mcp.Version20251125})
	_, err := c.CallTool(t.Context(), "echo", nil)
	var he *mcp.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound || he.Err == nil || he.Err.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("the call: %v", err)
	}
	if n := initializes.Load(); n != 1 {
		t.Errorf("%d initializations, want 1", n)
	}
}
