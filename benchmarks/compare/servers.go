package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/params"
)

// A server is one contestant: how to build its HTTP handler in the child
// process, and which paths serve which wire.
type server struct {
	name  string // flag value and table row
	label string // table row
	// build returns the child's handler and a function releasing what it
	// holds. redisURL is set for servers that need Redis.
	build func(redisURL string) (http.Handler, func(), error)
	// sessionPath serves the session era (2025-11-25); statelessPath serves
	// 2026-07-28, "" when the server does not speak it.
	sessionPath, statelessPath string
	// sessions reports whether initialize opens a session (and a GET
	// stream can be held on it); the bare baseline opens none.
	sessions bool
	redis    bool
	cluster  bool   // redis is a 6-node Redis Cluster
	note     string // printed under the table
}

// servers are the contestants, in table order. The baseline comes first:
// every multiple is of its CPU per request.
var servers = []server{
	{name: "echo", label: "bare Echo JSON handler (baseline)", build: buildBareEcho,
		sessionPath: "/mcp", statelessPath: "/mcp"},
	{name: "specter", label: "Specter, in memory", build: buildSpecter,
		sessionPath: "/mcp", statelessPath: "/mcp", sessions: true},
	{name: "specter-redis", label: "Specter, sessions on Redis", build: buildSpecter,
		sessionPath: "/mcp", statelessPath: "/mcp", sessions: true, redis: true,
		note: "Specter on Redis: its memory cells count the Specter process only, the session records live in redis-server"},
	{name: "specter-cluster", label: "Specter, sessions on a 3-master Redis Cluster", build: buildSpecter,
		sessionPath: "/mcp", statelessPath: "/mcp", sessions: true, redis: true, cluster: true,
		note: "Specter on a Redis Cluster of 3 masters with a replica each, on this machine: its redis-server CPU is the masters' and the replicas' together, its commands the masters'"},
	{name: "mcp-go", label: "mcp-go v1.2.1", build: buildMCPGo,
		sessionPath: "/mcp", statelessPath: "/mcp", sessions: true,
		note: "mcp-go runs with stateful sessions (WithStateful): its default keeps no session at all"},
	{name: "go-sdk", label: "official go-sdk v1.8.0", build: buildGoSDK,
		sessionPath: "/mcp", statelessPath: "/stateless", sessions: true,
		note: "the official go-sdk serves 2026-07-28 only in its stateless mode: its 2026-07-28 cell is that mode"},
	{name: "go-sdk-stateless", label: "official go-sdk v1.8.0, stateless mode", build: buildGoSDK,
		sessionPath: "/stateless",
		note:        "the go-sdk's stateless mode keeps no session: its session-era cells are initialize and tools/call without one"},
}

func serverNamed(name string) (server, bool) {
	for _, s := range servers {
		if s.name == name {
			return s, true
		}
	}
	return server{}, false
}

// greeting is what every server's greet tool answers.
func greeting(name string) string { return "Hello, " + name + "!" }

// bareRequest is what the baseline decodes: a JSON-RPC envelope whose
// params are those of tools/call. It does no MCP work beyond that.
type bareRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			Name string `json:"name"`
		} `json:"arguments"`
	} `json:"params"`
}

type bareText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type bareResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// buildBareEcho is the 1.0× baseline: an Echo v4 route that decodes the
// JSON-RPC body and answers a JSON-RPC result. A notification (no id)
// gets 202, as MCP answers it; initialize gets a small result so that
// the session-create column has a baseline too.
func buildBareEcho(string) (http.Handler, func(), error) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/mcp", func(c echo.Context) error {
		var req bareRequest
		if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
			return c.JSON(http.StatusBadRequest, map[string]string{"error": err.Error()})
		}
		if len(req.ID) == 0 {
			return c.NoContent(http.StatusAccepted)
		}
		var result any
		switch req.Method {
		case "tools/call":
			result = map[string]any{"content": []bareText{{Type: "text", Text: greeting(req.Params.Arguments.Name)}}}
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]string{"name": "bare", "version": "1.0.0"}}
		default:
			return c.JSON(http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32601, "message": "no such method"}})
		}
		return c.JSON(http.StatusOK, bareResponse{JSONRPC: "2.0", ID: req.ID, Result: result})
	})
	return e, func() {}, nil
}

// buildSpecter mounts a router with the greet tool on an Echo app, as a
// user would. One client opens every session here, so the per-caller quotas
// are off; the rest are defaults.
func buildSpecter(redisURL string) (http.Handler, func(), error) {
	opts := []specter.RouterOption{
		specter.Logger(zerolog.Nop()),
		specter.MaxSessionsPerPrincipal(0), specter.MaxStreamsPerPrincipal(0),
		specter.MaxSessions(1_000_000),
	}
	var closeBP func()
	if redisURL != "" {
		bp, err := redisbp.New(context.Background(), redisURL)
		if err != nil {
			return nil, nil, fmt.Errorf("redis backplane: %w", err)
		}
		opts = append(opts, specter.Backplane(bp))
		closeBP = func() { _ = bp.Close() }
	}
	r := specter.NewRouter("compare", "1.0.0", opts...)
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(greeting(p.String("name")))
	}, specter.Description("Greet someone"),
		params.String("name", params.Required(), params.Validate("min=1,max=64")))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	r.Mount(e.Group("/mcp"))
	return e, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		if closeBP != nil {
			closeBP()
		}
	}, nil
}

// buildMCPGo serves mcp-go's streamable HTTP server with stateful
// sessions (its default only mints ids and keeps nothing, which would
// make the per-session figures meaningless).
func buildMCPGo(string) (http.Handler, func(), error) {
	s := mcpgoserver.NewMCPServer("compare", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("greet", mcpgo.WithDescription("Greet someone"),
		mcpgo.WithString("name", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			name, err := req.RequireString("name")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(greeting(name)), nil
		})
	h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateful(true))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	}, nil
}

// goSDKInput is the greet tool's arguments for the go-sdk's typed tools.
type goSDKInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// buildGoSDK serves the official SDK twice: stateful at /mcp (the session
// era; it refuses 2026-07-28 there) and stateless at /stateless, the only
// mode in which it serves 2026-07-28. Both answer JSON rather than SSE,
// as the others do.
func buildGoSDK(string) (http.Handler, func(), error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "compare", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greet someone"},
		func(_ context.Context, _ *mcp.CallToolRequest, in goSDKInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: greeting(in.Name)}}}, nil, nil
		})
	get := func(*http.Request) *mcp.Server { return s }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	mux.Handle("/stateless", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: true}))
	return mux, func() {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	}, nil
}
