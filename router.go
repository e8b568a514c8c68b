package specter

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/middleware"
)

// Router is an MCP server: its declarations, its connect step and its
// sessions. Create one with NewRouter, declare tools, prompts and
// resources, then Mount it on an Echo group or serve Handler(). A Router
// is safe for concurrent use; declarations may change while it serves.
type Router struct {
	info         mcp.Implementation
	instructions string
	connect      func(*Context) error
	cfg          config
	log          zerolog.Logger

	mu       sync.Mutex // serializes declaration changes
	catalog  atomic.Pointer[catalog]
	sessions *session.Table
	streams  *stream.Node
	closing  atomic.Bool
	work     sync.WaitGroup // Async work in flight
	handler  http.Handler
	sealer   *sealer
	listen   listeners // 2026-07-28 subscriptions/listen streams
	tasks    taskTable // tasks extension

	bp          backplane.Backplane
	local       bool // the backplane lives in this process only
	stopSub     func()
	onStart     func(*Context, *Session) error
	onTerminate func(string, *Session)
}

type config struct {
	pageSize       int
	bufferBytes    int
	sessionTimeout time.Duration
	maxSessions    int
	maxBody        int64
	keepAlive      time.Duration
	retry          time.Duration
	writeTimeout   time.Duration
	logLevel       mcp.LoggingLevel
	onError        func(ctx context.Context, err error, req *Request)
	guard          *middleware.HostGuardConfig
	resourceMeta   string
	cache          cacheHint
	stateKey       []byte
	stateTTL       time.Duration
	taskTTL        time.Duration
}

// RouterOption configures a Router.
type RouterOption interface{ applyRouter(*Router) }

type routerOption func(*Router)

func (f routerOption) applyRouter(r *Router) { f(r) }

// Instructions tells clients how to use the server; they often pass it to
// the model. Connect may override it per caller with PutInstructions.
func Instructions(s string) RouterOption {
	return routerOption(func(r *Router) { r.instructions = s })
}

// WebsiteURL sets the server's website in its implementation info.
func WebsiteURL(url string) RouterOption {
	return routerOption(func(r *Router) { r.info.WebsiteURL = url })
}

// Logger sets the zerolog logger for the router's own messages (errors
// with detail, sessions ending). Default: JSON lines on stderr at info.
func Logger(l zerolog.Logger) RouterOption { return routerOption(func(r *Router) { r.log = l }) }

// OnError receives the full detail of every error a client only sees as
// "internal error": handler errors and recovered panics.
func OnError(f func(ctx context.Context, err error, req *Request)) RouterOption {
	return routerOption(func(r *Router) { r.cfg.onError = f })
}

// PageSize sets how many items a page of tools/list, prompts/list,
// resources/list, resources/templates/list, skills/list and
// resources/directory/read holds. Default 50.
func PageSize(n int) RouterOption { return routerOption(func(r *Router) { r.cfg.pageSize = n }) }

// SessionTimeout ends sessions idle for longer than d (no request, no open
// stream, no running work). Default 5 minutes; 0 keeps sessions until
// DELETE.
func SessionTimeout(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.sessionTimeout = d })
}

// MaxSessions caps the sessions this node holds; initialize beyond it
// answers 503. Default 50,000.
func MaxSessions(n int) RouterOption { return routerOption(func(r *Router) { r.cfg.maxSessions = n }) }

// BufferBytes caps the messages a stream keeps for resumption. Default 4 MiB.
func BufferBytes(n int) RouterOption { return routerOption(func(r *Router) { r.cfg.bufferBytes = n }) }

// MaxBodyBytes caps a request body; larger bodies get 413. Default 4 MiB.
func MaxBodyBytes(n int64) RouterOption { return routerOption(func(r *Router) { r.cfg.maxBody = n }) }

// KeepAlive sets how often a quiet stream gets a comment so intermediaries
// keep it open. Default 15 seconds; 0 disables.
func KeepAlive(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.keepAlive = d })
}

// RetryAfter is the reconnection delay sent to clients in SSE retry fields.
// Default 1 second.
func RetryAfter(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.retry = d })
}

// WriteTimeout bounds how long a write to a client may block; a client
// that does not read loses its connection (not its messages). Default 10s.
func WriteTimeout(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.writeTimeout = d })
}

// DefaultLogLevel is the level below which log messages are not sent to a
// session that never called logging/setLevel. Default info.
func DefaultLogLevel(l mcp.LoggingLevel) RouterOption {
	return routerOption(func(r *Router) { r.cfg.logLevel = l })
}

// HostGuard configures the DNS-rebinding guard (see middleware.HostGuard),
// which is on by default. HostGuard(nil) turns it off.
func HostGuard(cfg *middleware.HostGuardConfig) RouterOption {
	return routerOption(func(r *Router) { r.cfg.guard = cfg })
}

// ResourceMetadata sets the URL of the OAuth protected resource metadata
// (RFC 9728) that 401 challenges point clients to.
func ResourceMetadata(url string) RouterOption {
	return routerOption(func(r *Router) { r.cfg.resourceMeta = url })
}

// StateKey sets the secret that seals requestState in multi round-trip
// requests (2026-07-28). Default: a random key per process, so a retry
// must reach the same process; give every node of a deployment the same
// key to let a retry land anywhere.
func StateKey(secret []byte) RouterOption {
	return routerOption(func(r *Router) { r.cfg.stateKey = secret })
}

// StateTTL bounds how long a client may take to answer an input request
// before its requestState expires. Default 10 minutes.
func StateTTL(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.stateTTL = d })
}

// TaskTTL is how long a task stays readable with tasks/get (and how long
// its work may run). Default 10 minutes.
func TaskTTL(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.taskTTL = d })
}

// NewRouter returns a router for the server name and version.
func NewRouter(name, version string, opts ...RouterOption) *Router {
	r := &Router{
		info: mcp.Implementation{Name: name, Version: version},
		cfg: config{
			pageSize: 50, bufferBytes: 4 << 20, sessionTimeout: 5 * time.Minute, maxSessions: 50_000,
			maxBody: 4 << 20, keepAlive: 15 * time.Second, retry: time.Second, writeTimeout: 10 * time.Second,
			logLevel: mcp.LevelInfo, guard: &middleware.HostGuardConfig{},
			cache: cacheHint{scope: mcp.CachePublic}, stateTTL: 10 * time.Minute, taskTTL: 10 * time.Minute,
		},
		log: zerolog.New(os.Stderr).With().Timestamp().Logger().Level(zerolog.InfoLevel),
	}
	r.catalog.Store(&catalog{byTool: map[string]*declaration{}, byPrompt: map[string]*declaration{}, byURI: map[string]*declaration{}})
	for _, o := range opts {
		if o != nil {
			o.applyRouter(r)
		}
	}
	s, err := newSealer(r.cfg.stateKey, r.cfg.stateTTL)
	if err != nil {
		panic(err) // the system's random source failed
	}
	r.sealer = s
	r.listen.m = map[*listener]struct{}{}
	r.tasks.m = map[string]*task{}
	if r.bp == nil {
		r.bp = backplane.NewMemory()
	}
	_, r.local = r.bp.(*backplane.Memory)
	r.streams = stream.NewNode(stream.Config{Backplane: r.bp, Local: r.local, BufferBytes: r.cfg.bufferBytes,
		WriteTimeout: r.cfg.writeTimeout, KeepAlive: r.cfg.keepAlive, Retry: r.cfg.retry, Log: r.log, Publish: r.publish})
	r.sessions = session.NewTable(session.Config{Backplane: r.bp, Local: r.local, Streams: r.streams,
		Timeout: r.cfg.sessionTimeout, Node: session.NewID()[:6], Log: r.log, Publish: r.publish, Expired: func(s *session.Session) { r.finish(s, EndTimeout) }})
	stop, err := r.bp.Subscribe(r.onMessage)
	if err != nil {
		// Notifications and answers will not cross nodes until this
		// node restarts; requests still work.
		r.log.Error().Err(err).Msg("mcp backplane: subscribe failed")
		stop = func() {}
	}
	r.stopSub = stop
	var h http.Handler = http.HandlerFunc(r.serveHTTP)
	if r.cfg.guard != nil {
		h = middleware.HostGuardWithConfig(*r.cfg.guard)(h)
	}
	r.handler = h
	return r
}

// Connect sets the function that runs on every MCP request before it is
// dispatched (after any Echo middleware): it authenticates the caller and
// decides what the caller may see, with Assign, SetPrincipal, PutTools,
// PutPrompts, PutResources and PutInstructions. Returning Unauthorized or
// Forbidden refuses the request with 401 or 403; any other error refuses
// it with a JSON-RPC internal error.
func (r *Router) Connect(f func(c *Context) error) { r.connect = f }

// Handler returns the router as an http.Handler, for plain net/http. It
// serves POST, GET and DELETE on whatever path it is mounted at.
func (r *Router) Handler() http.Handler { return r.handler }

// ServeHTTP serves the MCP endpoint.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.handler.ServeHTTP(w, req) }

// Mount registers the MCP endpoint at the group's prefix, so the group's
// middleware (authentication, logging, rate limits) runs before connect.
func (r *Router) Mount(g *echo.Group, middleware ...echo.MiddlewareFunc) {
	h := func(c echo.Context) error {
		req := c.Request()
		req = req.WithContext(context.WithValue(req.Context(), echoKey{}, c))
		r.handler.ServeHTTP(c.Response(), req)
		return nil
	}
	g.Match([]string{http.MethodPost, http.MethodGet, http.MethodDelete}, "", h, middleware...)
}

type echoKey struct{}

// Shutdown stops accepting new sessions, waits for Async work to finish
// (or ctx to end), then ends every session.
func (r *Router) Shutdown(ctx context.Context) error {
	r.closing.Store(true)
	done := make(chan struct{})
	go func() { r.work.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	for _, s := range r.sessions.All() {
		if r.local {
			_ = r.endSession(s, EndShutdown) // the sessions die with this process
		} else {
			s.Stop() // other nodes go on serving them
		}
	}
	r.stopSub()
	for _, l := range r.listen.all() {
		l.ob.Stop()
	}
	for _, t := range r.tasks.all() {
		t.stop()
	}
	return err
}

// Sessions returns the number of sessions this node holds.
func (r *Router) Sessions() int { return r.sessions.Len() }

// StreamsAttached returns how many GET streams are attached to this node.
func (r *Router) StreamsAttached() int {
	n := 0
	for _, s := range r.sessions.All() {
		if s.GetStreamAttached() {
			n++
		}
	}
	return n
}

// capabilities are what the server offers every session-era client.
func (r *Router) capabilities() mcp.ServerCapabilities {
	return mcp.ServerCapabilities{
		Logging: &struct{}{}, Completions: &struct{}{},
		Tools:     &mcp.ListChangedCapability{ListChanged: true},
		Prompts:   &mcp.ListChangedCapability{ListChanged: true},
		Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
	}
}

// instructionsFor returns the instructions for a caller: connect's, or
// the router's.
func (r *Router) instructionsFor(s *scope) string {
	if s.instructions != nil {
		return *s.instructions
	}
	return r.instructions
}
