package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Options configure a client. The zero value is a client with no
// capabilities that negotiates the newest revision both sides speak.
type Options struct {
	// Info names the client to servers; default "specter-client".
	Info mcp.Implementation
	// Version pins the protocol revision: a server that does not speak it
	// is an error. Empty negotiates: server/discover first (2026-07-28),
	// initialize for servers of the session era.
	Version string

	// Sampling answers sampling/createMessage; setting it declares the
	// sampling capability. The same handlers answer session-era server
	// requests and 2026-07-28 input_required rounds.
	Sampling func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// SamplingTools declares sampling.tools (SEP-1577): the Sampling
	// handler accepts p.Tools and p.ToolChoice, and may answer with
	// mcp.ToolUse content and stopReason mcp.StopReasonToolUse. Without
	// it, a request with tools is refused with -32602, as the spec asks.
	SamplingTools bool
	// Elicitation answers elicitation/create; setting it declares the
	// elicitation capability (form mode, and URL mode when ElicitURL).
	// Fields the user left out of an accepted form are filled with the
	// defaults of the requested schema (SEP-1034).
	Elicitation func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// ElicitURL declares URL-mode elicitation as well as form mode.
	// Without it, a URL-mode request is answered with an error (-32602)
	// and never reaches Elicitation.
	ElicitURL bool
	// Roots answers roots/list; setting it declares the roots capability
	// (with listChanged in the session era). When the roots change, call
	// RootsChanged.
	Roots func(ctx context.Context) ([]mcp.Root, error)

	// OnLog receives the server's log messages (notifications/message).
	OnLog func(p mcp.LoggingMessageParams)
	// LogLevel asks for log messages at this level and above: sent with
	// logging/setLevel in the session era and in _meta in 2026-07-28.
	LogLevel mcp.LoggingLevel
	// OnNotification receives every other notification from the server:
	// list changes, resource updates. Setting it in the session era opens
	// the session's GET stream, where such notifications arrive.
	OnNotification func(method string, params json.RawMessage)

	// Tasks declares tasks. In 2026-07-28 requests it declares the tasks
	// extension (SEP-2663): a request the server makes a task of is then
	// followed to its end (tasks/get at the server's poll interval, 100 ms
	// at the least; input requests answered by the handlers above through
	// tasks/update, MaxInputRounds times at most; tasks/cancel when the
	// caller's context ends or the rounds run out). In a session of
	// 2025-11-25 it declares that the client runs the server's sampling
	// and elicitation requests as tasks when the server asks: the answer
	// is a task at once, which the server polls (tasks/get, tasks/result,
	// tasks/list, tasks/cancel). A tool whose execution.taskSupport is
	// "required" runs as a task either way (see CallTool). GetTask,
	// UpdateTask and CancelTask drive tasks by hand.
	Tasks bool
	// UI declares the MCP Apps extension (io.modelcontextprotocol/ui) with
	// the MIME type text/html;profile=mcp-app: this client renders the UI
	// resources tools link to (ToolApp reads one).
	UI bool
	// Extensions declares further extensions, by identifier, with their
	// settings (JSON objects; {} for none).
	Extensions map[string]json.RawMessage

	// JSONText has CallToolInto read the text content of a result that
	// carries no structuredContent as its structured content, when that
	// text is JSON: for servers that answer JSON as text.
	JSONText bool

	// MaxServerRequests bounds the server's requests (sampling,
	// elicitation, roots, ping) the client answers at once; default 16.
	// As many more are refused with -32000, and any beyond those dropped.
	// It bounds, apart, the sampling and elicitation tasks run at once for
	// a session-era server (Tasks): a request for one more is refused
	// with -32000.
	MaxServerRequests int

	// MaxPages bounds the pages that Tools, Prompts, Resources and
	// ResourceTemplates (and so a Host's lists) follow; default 1,000.
	// MaxListItems bounds the items they gather; default 100,000. A
	// longer list is an error, never a shorter list.
	MaxPages, MaxListItems int

	// MaxInputRounds bounds the input_required rounds of one request,
	// whether answered by sending it again or, for a task, through
	// tasks/update; default 8.
	MaxInputRounds int
	// Logger receives warnings, such as tools rejected for an invalid
	// x-mcp-header; default none.
	Logger *zerolog.Logger
}

// Client is a connection to one MCP server, in whichever protocol era the
// two agreed on. It is safe for concurrent use.
type Client struct {
	opts   Options
	conn   conn
	nextID atomic.Int64

	ctx    context.Context // the client's lifetime; ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// Slots for answering and refusing the server's requests, and for
	// running the tasks it asks for.
	handling, refusing, tasking chan struct{}
	pause                       func(ctx context.Context, d time.Duration) error // between task polls; nil waits

	// session counts the sessions started (session era), so that one
	// request renews a session the server ended, not each request that
	// finds it gone.
	session atomic.Uint64
	renewMu sync.Mutex

	mu           sync.Mutex
	version      string
	server       mcp.Implementation
	caps         mcp.ServerCapabilities
	instructions string
	headers      map[string]paramHeaders // per tool, from the last tools/list
	outputs      map[string]*outputSchema
	taskSupport  map[string]string      // per tool, from the last tools/list
	running      map[string]*serverTask // tasks run for the server, by id
	progress     map[string]func(mcp.ProgressParams)
	closed       bool
	cancels      chan struct{} // closed once the last notifications/cancelled is through; nil before any
}

// Connect opens the transport and agrees on a protocol revision with the
// server. Close the client when done.
func Connect(ctx context.Context, t Transport, opts *Options) (*Client, error) {
	c := &Client{headers: map[string]paramHeaders{}, progress: map[string]func(mcp.ProgressParams){}, taskSupport: map[string]string{}, running: map[string]*serverTask{}}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Info.Name == "" {
		c.opts.Info = mcp.Implementation{Name: "specter-client", Version: "1.0.0"}
	}
	if c.opts.MaxInputRounds <= 0 {
		c.opts.MaxInputRounds = 8
	}
	if c.opts.MaxPages <= 0 {
		c.opts.MaxPages = 1000
	}
	if c.opts.MaxListItems <= 0 {
		c.opts.MaxListItems = 100_000
	}
	if c.opts.MaxServerRequests <= 0 {
		c.opts.MaxServerRequests = 16
	}
	c.handling = make(chan struct{}, c.opts.MaxServerRequests)
	c.refusing = make(chan struct{}, c.opts.MaxServerRequests)
	c.tasking = make(chan struct{}, c.opts.MaxServerRequests)
	if v := c.opts.Version; v != "" && v != mcp.Version20260728 && !mcp.IsSessionVersion(v) {
		return nil, fmt.Errorf("mcp client: unknown protocol version %q", v)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	conn, err := openConn(ctx, t, c.receive)
	if err != nil {
		c.cancel()
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	c.conn = conn
	if err := c.negotiate(ctx); err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	if !c.Stateless() {
		if c.opts.LogLevel != "" {
			if err := c.SetLogLevel(ctx, c.opts.LogLevel); err != nil {
				c.warn(err, "logging/setLevel failed")
			}
		}
		if c.opts.OnNotification != nil || c.opts.OnLog != nil || c.opts.Sampling != nil || c.opts.Elicitation != nil || c.opts.Roots != nil {
			// Wait for the stream, so that nothing the server sends on it
			// once Connect returns is lost.
			open := make(chan struct{})
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				if err := c.conn.listen(c.ctx, sync.OnceFunc(func() { close(open) })); err != nil && c.ctx.Err() == nil {
					c.warn(err, "the session's stream closed")
				}
			}()
			select {
			case <-open:
			case <-ctx.Done():
				_ = c.Close(context.Background())
				return nil, ctx.Err()
			}
		}
	}
	return c, nil
}

// Close ends the session (DELETE over HTTP, end of input over stdio) and
// stops the client's background work.
func (c *Client) Close(ctx context.Context) error {
	// The notifications/cancelled of calls already given up go out
	// first (within ctx): a server must hear of a call it still runs,
	// even from a client that closes at once, as a command on Ctrl-C.
	_ = c.afterCancels(ctx)
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	var err error
	if c.conn != nil {
		err = c.conn.close(ctx)
	}
	c.wg.Wait()
	return err
}

// Version is the protocol revision in use.
func (c *Client) Version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Stateless reports whether the client speaks the stateless 2026-07-28 wire.
func (c *Client) Stateless() bool { return !mcp.IsSessionVersion(c.Version()) }

// ServerInfo is the server's name and version, when it gave them.
func (c *Client) ServerInfo() mcp.Implementation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

// ServerCapabilities is what the server declared.
func (c *Client) ServerCapabilities() mcp.ServerCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// Instructions are the server's instructions for the model, if any.
func (c *Client) Instructions() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instructions
}

// Capabilities is what the client declares, from the handlers set.
func (c *Client) Capabilities() mcp.ClientCapabilities { return c.capabilities(c.opts.Tasks) }

// capabilities is what the client declares, with tasks or without.
func (c *Client) capabilities(tasks bool) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if c.opts.Roots != nil {
		// 2026-07-28 asks for roots within each request: nothing to
		// announce.
		caps.Roots = &mcp.RootsCapability{ListChanged: !c.Stateless()}
	}
	if c.opts.Sampling != nil {
		caps.Sampling = &mcp.SamplingCapability{}
		if c.opts.SamplingTools {
			caps.Sampling.Tools = &struct{}{}
		}
	}
	if c.opts.Elicitation != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}}
		if c.opts.ElicitURL {
			caps.Elicitation.URL = &struct{}{}
		}
	}
	if c.opts.UI || len(c.opts.Extensions) > 0 || (tasks && c.Stateless()) {
		caps.Extensions = maps.Clone(c.opts.Extensions)
		if caps.Extensions == nil {
			caps.Extensions = map[string]json.RawMessage{}
		}
	}
	if tasks {
		if c.Stateless() {
			caps.Extensions[mcp.ExtensionTasks] = json.RawMessage("{}")
		} else {
			caps.Tasks = c.sessionTasks()
		}
	}
	if c.opts.UI {
		caps.Extensions[mcp.ExtensionUI] = uiCapability
	}
	return caps
}

func (c *Client) warn(err error, msg string) {
	if c.opts.Logger != nil {
		c.opts.Logger.Warn().Err(err).Msg(msg)
	}
}

// negotiate agrees on a revision: 2026-07-28 through server/discover,
// falling back to initialize when the server does not know the method.
func (c *Client) negotiate(ctx context.Context) error {
	pin := c.opts.Version
	if mcp.IsSessionVersion(pin) {
		return c.initialize(ctx, pin)
	}
	c.setVersion(mcp.Version20260728)
	var d discoverResult
	err := c.call(ctx, mcp.MethodDiscover, struct{}{}, &d, nil)
	if err == nil && len(d.SupportedVersions) > 0 {
		if !slices.Contains(d.SupportedVersions, mcp.Version20260728) {
			if v := bestSession(d.SupportedVersions); v != "" && pin == "" {
				return c.initialize(ctx, v)
			}
			return fmt.Errorf("mcp client: no protocol version in common (server: %v)", d.SupportedVersions)
		}
		c.mu.Lock()
		c.caps, c.instructions = d.Capabilities, d.Instructions
		c.server = d.ServerInfo
		if raw, ok := d.Meta[mcp.MetaServerInfo]; ok && c.server.Name == "" {
			b, _ := json.Marshal(raw)
			_ = json.Unmarshal(b, &c.server)
		}
		c.mu.Unlock()
		return nil
	}
	if pin != "" {
		if err == nil {
			err = errors.New("server/discover gave no supported versions")
		}
		return fmt.Errorf("mcp client: %s is pinned but the server did not accept it: %w", pin, err)
	}
	version := mcp.LatestSessionVersion
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeUnsupportedVersion {
		if v := bestSession(supportedOf(rpcErr)); v != "" {
			version = v
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return c.initialize(ctx, version)
}

// discoverResult reads a server/discover result loosely: serverInfo has
// been both a member and an entry of _meta.
type discoverResult struct {
	mcp.DiscoverResult
	ServerInfo mcp.Implementation `json:"serverInfo"`
}

func (c *Client) initialize(ctx context.Context, version string) error {
	c.setVersion(version)
	var res mcp.InitializeResult
	p := mcp.InitializeParams{ProtocolVersion: version, Capabilities: c.Capabilities(), ClientInfo: c.opts.Info}
	if err := c.call(ctx, mcp.MethodInitialize, &p, &res, nil); err != nil {
		return err
	}
	if !mcp.IsSessionVersion(res.ProtocolVersion) {
		return fmt.Errorf("mcp client: the server chose protocol version %q, which this client does not speak", res.ProtocolVersion)
	}
	if pin := c.opts.Version; pin != "" && res.ProtocolVersion != pin {
		return fmt.Errorf("mcp client: %s is pinned but the server chose %s", pin, res.ProtocolVersion)
	}
	c.mu.Lock()
	c.version = res.ProtocolVersion
	c.server, c.caps, c.instructions = res.ServerInfo, res.Capabilities, res.Instructions
	c.mu.Unlock()
	return c.notify(ctx, mcp.NotificationInitialized, nil)
}

func (c *Client) setVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// bestSession returns the newest session-era revision in versions.
func bestSession(versions []string) string {
	for _, v := range mcp.SessionVersions {
		if slices.Contains(versions, v) {
			return v
		}
	}
	return ""
}

// supportedOf reads data.supported of an unsupported-version error.
func supportedOf(e *jsonrpc.Error) []string {
	b, err := json.Marshal(e.Data)
	if err != nil {
		return nil
	}
	var d struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(b, &d)
	return d.Supported
}
