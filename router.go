package specter

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/hostguard"
	"github.com/specter-mcp/specter/internal/lease"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/internal/transport"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

// Router is an MCP server: its declarations, its connect step and its
// sessions. Create one with NewRouter, declare tools, prompts and
// resources, then Mount it on an Echo group or serve Handler(). A Router
// is safe for concurrent use; declarations may change while it serves.
type Router struct {
	info         mcp.Implementation
	serverInfo   []byte // info as the _meta of a 2026-07-28 result (stateless.InfoMeta)
	instructions string
	connect      func(*Context) error
	cfg          config
	log          zerolog.Logger

	mu       sync.Mutex // serializes declaration changes
	catalog  atomic.Pointer[catalog.Catalog[*declaration]]
	batch    *batch // Declare's batch in progress, under mu
	sessions *session.Table
	cluster  *session.Cluster
	streams  *stream.Node
	closing  atomic.Bool
	work     workGroup // NoReply work, tasks and events in flight
	handler  http.Handler
	sealer   *stateless.Sealer
	t        *transport.Transport[*Context] // serves HTTP; holds the listen streams
	tasks    *task.Table                    // tasks of both wires, shared through the backplane

	bp          backplane.Backplane
	local       bool // the backplane lives in this process only
	stopSub     func()
	lease       *lease.Keeper // this node's lease on a shared backplane; nil without one
	onNodeDown  func(NodeDown)
	onStart     func(*Context, *Session) error
	onTerminate func(string, *Session)
	onEvent     func(*Session, string, json.RawMessage)
	onSubscribe func(*Context, string, Params) error
	onUnsub     func(*Session, string)
	onDrop      func(*Context)

	warned warnedKeys // connect named these undeclared items; warned once
	mw     []Middleware

	quotas transport.Quotas           // what each caller holds here (quotas.go)
	ext    map[string]json.RawMessage // extensions declared with Extension (extensions.go)

	heldTTL time.Duration // of the entries of shared quotas; 0: access.HeldTTL (tests shorten it)
}

type config struct {
	pageSize       int
	bufferBytes    int
	sessionTimeout time.Duration
	maxSessions    int
	maxBody        int64
	maxURI         int
	maxSubs        int
	bodyTimeout    time.Duration
	keepAlive      time.Duration
	retry          time.Duration
	writeTimeout   time.Duration
	logLevel       mcp.LoggingLevel
	onError        func(ctx context.Context, err error, req *Request)
	probe          observe.Probe
	guard          hostguard.Config // the DNS-rebinding guard's lists
	noGuard        bool
	resourceMeta   string
	cache          cacheHint
	stateKey       []byte
	stateTTL       time.Duration
	taskTTL        time.Duration
	taskLimits     task.Limits
	anonymousTasks bool               // AnonymousTasks
	versions       transport.Versions // the protocol revisions offered
	maxFile        int64              // MaxResourceFile; 0: DefaultMaxResourceFile
}

// RouterOption configures a Router.
type RouterOption interface{ applyRouter(*Router) }

type routerOption func(*Router)

func (f routerOption) applyRouter(r *Router) { f(r) }

// Instructions tells clients how to use the server; they often pass it to
// the model. Connect may override it per caller with PutInstructions.
func Instructions(s string) RouterOption { return routerOption(func(r *Router) { r.instructions = s }) }

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

// Instrument sets the probe told of every request, NoReply work and request
// to the client (package observe; package specterotel has one for OpenTelemetry).
func Instrument(p observe.Probe) RouterOption {
	return routerOption(func(r *Router) { r.cfg.probe = p })
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

// DefaultMaxURIBytes is the default of MaxURIBytes.
const DefaultMaxURIBytes = 4 << 10

// MaxURIBytes caps the URI of a resources/read, resources/subscribe or
// resources/unsubscribe. A longer one is refused with JSON-RPC -32602
// (HTTP 400 on the 2026-07-28 wire) before it is matched against any
// template, so that no request makes the server match megabytes. Default
// DefaultMaxURIBytes (4 KiB); 0 or less restores the default.
func MaxURIBytes(n int) RouterOption { return routerOption(func(r *Router) { r.cfg.maxURI = n }) }

// MaxSubscriptionsPerSession caps the resources one session subscribes
// to with resources/subscribe, and one 2026-07-28 subscriptions/listen
// filter names. The next subscribe answers -32000 naming the limit (a
// filter naming more answers 400, -32602). Default 256; 0 or less means
// no cap.
func MaxSubscriptionsPerSession(n int) RouterOption {
	return routerOption(func(r *Router) { r.cfg.maxSubs = n })
}

// DefaultBodyReadTimeout is the default of BodyReadTimeout.
const DefaultBodyReadTimeout = 30 * time.Second

// BodyReadTimeout bounds how long a POST's body may take to arrive, from
// the moment the router starts reading it. A body that is not read in time
// gets 408 Request Timeout with a JSON-RPC error and the connection is
// closed, so a client that trickles its body cannot hold a connection and
// a goroutine for long. The bound covers the body only: the answer,
// however long it streams, is not cut. Default 30 seconds, enough for the
// largest body MaxBodyBytes allows on a slow link; 0 sets no bound of the
// router's own.
//
// It is a read deadline on the connection (http.ResponseController), which
// every net/http server supports; with a ResponseWriter that cannot set
// one, only the server's own timeouts apply. Set http.Server's
// ReadHeaderTimeout for the headers, and not its ReadTimeout or
// WriteTimeout, which would cut long-lived event streams.
func BodyReadTimeout(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.bodyTimeout = d })
}

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

// AllowedHosts adds the host names (without port) the server answers to,
// for the DNS-rebinding guard, which is on unless NoHostGuard. On a
// loopback address localhost, 127.0.0.1 and [::1] are accepted without
// it; on a public address, once set, Host must be one of these names or
// an IP address, and browser requests from the server's own origin pass
// only on these names. Name a public server: AllowedHosts("mcp.example.com").
// middleware.HostGuardWithConfig describes the rules.
func AllowedHosts(hosts ...string) RouterOption {
	return routerOption(func(r *Router) { r.cfg.guard.AllowedHosts = append(r.cfg.guard.AllowedHosts, hosts...) })
}

// AllowedOrigins adds the origins ("https://app.example.com",
// "http://localhost:6274") whose pages may call the server from a
// browser. Other origins are refused with 403, including pages on other
// ports of localhost, unless they are the request's own origin on a
// trusted host (see AllowedHosts).
func AllowedOrigins(origins ...string) RouterOption {
	return routerOption(func(r *Router) { r.cfg.guard.AllowedOrigins = append(r.cfg.guard.AllowedOrigins, origins...) })
}

// NoHostGuard turns the DNS-rebinding guard off, for a router behind a
// middleware.HostGuard of its own or a proxy that checks Host and Origin.
func NoHostGuard() RouterOption { return routerOption(func(r *Router) { r.cfg.noGuard = true }) }

// ResourceMetadata sets the URL of the OAuth protected resource metadata
// (RFC 9728) that the router's 401 and 403 challenges point clients to,
// for apps that authenticate without auth.JWT. Behind auth.JWT it is not
// needed: auth.JWT names the URL its Config states in each request's
// context, and that URL wins. Default: none.
func ResourceMetadata(url string) RouterOption {
	return routerOption(func(r *Router) { r.cfg.resourceMeta = url })
}

// StateKey sets the secret that seals requestState in multi round-trip
// requests (2026-07-28). Default: a random key per process, so a retry
// must reach the same process; give every node of a deployment the same
// key to let a retry land anywhere. NewRouter logs a warning when the
// Backplane is shared between nodes and StateKey is not set. NewRouter
// panics on an empty secret (an unset environment variable, say), which
// would seal every state with a key anyone can compute.
func StateKey(secret []byte) RouterOption {
	return routerOption(func(r *Router) {
		if len(secret) == 0 {
			panic("specter: StateKey is empty: give every node the same secret, 32 random bytes or more")
		}
		r.cfg.stateKey = secret
	})
}

// InputTimeout bounds how long a client may take to answer what a handler
// asks it (Elicit, Sample, ListRoots). In a session the handler stops
// waiting and gets an error wrapping ErrInputTimeout, and the client is
// told it need not answer; on the 2026-07-28 wire the requestState of the
// question expires. Default 5 minutes: long enough for a person to answer
// a form, short enough that a client which never answers cannot pin the
// request's work and the session for long.
func InputTimeout(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.stateTTL = d })
}

// TaskTTL is how long a task stays readable with tasks/get (and how long
// its work may run). Default 10 minutes.
func TaskTTL(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.taskTTL = d })
}

// Versions pins the protocol revisions the server offers (mcp.Version*),
// for operators who must: initialize negotiates among the session-era
// ones named, and 2026-07-28 requests are served only if it is named;
// without it the server answers as a session-only server does. Default:
// every revision Specter speaks. NewRouter panics if a name is not one.
func Versions(revisions ...string) RouterOption {
	return routerOption(func(r *Router) {
		v, err := transport.PinVersions(revisions...)
		if err != nil {
			panic(err)
		}
		r.cfg.versions = v
	})
}

// NewRouter returns a router for the server name and version.
func NewRouter(name, version string, opts ...RouterOption) *Router {
	r := &Router{
		info: mcp.Implementation{Name: name, Version: version},
		cfg: config{
			pageSize: 50, bufferBytes: 4 << 20, sessionTimeout: 5 * time.Minute, maxSessions: 50_000,
			maxBody: 4 << 20, maxURI: DefaultMaxURIBytes, maxSubs: 256, bodyTimeout: DefaultBodyReadTimeout, keepAlive: 15 * time.Second, retry: time.Second, writeTimeout: 10 * time.Second,
			logLevel: mcp.LevelInfo,
			cache:    cacheHint{visibility: mcp.CachePublic}, stateTTL: 5 * time.Minute, taskTTL: 10 * time.Minute,
			taskLimits: task.Limits{Tasks: 100, Bytes: 32 << 20, Result: 4 << 20},
			versions:   transport.AllVersions(),
		},
		log: zerolog.New(os.Stderr).With().Timestamp().Logger().Level(zerolog.InfoLevel),
	}
	r.quotas = transport.DefaultQuotas()
	r.catalog.Store(catalog.New[*declaration]())
	for _, o := range opts {
		if o != nil {
			o.applyRouter(r)
		}
	}
	if r.cfg.maxURI <= 0 {
		r.cfg.maxURI = DefaultMaxURIBytes
	}
	r.sealer = stateless.MustNewSealer(r.cfg.stateKey, r.cfg.stateTTL)
	r.serverInfo = stateless.InfoMeta(r.info)
	if r.bp == nil {
		r.bp = backplane.NewMemory()
	}
	r.local = r.bp.Sharing() == backplane.InProcess
	if !r.local && r.cfg.stateKey == nil && len(r.cfg.versions.Stateless) > 0 {
		// Not refused: session-era traffic and 2026-07-28 requests that
		// ask nothing of the client work without it.
		r.log.Warn().Msg("specter: the backplane is shared between nodes but StateKey is not set: " +
			"each process seals 2026-07-28 requestState with a random key of its own, so a multi round-trip retry " +
			"that reaches another node is refused (\"requestState is not valid for this server\"); " +
			"give every node the same specter.StateKey")
	}
	r.streams = stream.NewNode(stream.Config{Backplane: r.bp, Local: r.local, BufferBytes: r.cfg.bufferBytes,
		WriteTimeout: r.cfg.writeTimeout, KeepAlive: r.cfg.keepAlive, Retry: r.cfg.retry, Log: r.log, Publish: r.publish, Alive: r.alive()})
	node := session.NewID()[:6]
	r.newLease(node)
	shared := r.shareQuotas(node)
	var hold func(string) func()
	if r.lease != nil {
		hold = r.lease.Hold
	}
	r.sessions = session.NewTable(session.Config{Backplane: r.bp, Local: r.local, Streams: r.streams, Hold: hold,
		Timeout: r.cfg.sessionTimeout, Node: node, Log: r.log, Publish: r.publish, MaxSubscriptions: max(r.cfg.maxSubs, 0), Expired: func(s *session.Session, why string) { r.cluster.Finish(s, why) }})
	r.cluster = session.NewCluster(session.ClusterConfig{Backplane: r.bp, Local: r.local, Sessions: r.sessions, Streams: r.streams, Log: r.log,
		Unsubscribed: r.unsubscribed, Ended: func(s *session.Session, reason string) {
			if r.onTerminate != nil {
				r.onTerminate(reason, &Session{s: s})
			}
		}})
	r.tasks = task.NewTable(task.Config{Backplane: r.bp, Context: r.streams.Context, Publish: r.publish,
		Listed: listedOwner, Log: r.log, Limits: r.cfg.taskLimits, Hold: hold, Shared: shared})
	r.stopSub = session.Subscribe(r.bp, r.onMessage, r.log)
	if r.lease != nil {
		r.lease.Start()
	}
	r.t = transport.New(transport.Config{MaxBody: r.cfg.maxBody, BodyTimeout: r.cfg.bodyTimeout, MaxSessions: r.cfg.maxSessions,
		LogLevel: r.cfg.logLevel.Severity(), Versions: r.cfg.versions, Quotas: r.quotas, MaxSubscriptions: max(r.cfg.maxSubs, 0), Closing: &r.closing, Sessions: r.sessions, Cluster: r.cluster, Streams: r.streams,
		Report: func(ctx context.Context, err error) { r.report(ctx, err, nil) }}, host{r})
	r.handler = r.t
	if !r.cfg.noGuard {
		r.handler = hostguard.New(r.cfg.guard)(r.handler)
	}
	return r
}

// Connect sets the function that runs on every MCP request before it is
// dispatched (after any Echo middleware): it authenticates the caller and
// decides what the caller may see, with Assign, SetPrincipal, AllowTools,
// HideTools (and the same for prompts and resources) and PutInstructions.
//
// Connect is a gate, like middleware, and so returns an error: nil lets the
// request through; Unauthorized or Forbidden refuse it with 401 or 403 and
// a Bearer challenge; any other error refuses it with a JSON-RPC internal
// error. A handler, by contrast, answers the request, and so returns a
// Result: Reply, NoReply or Error.
func (r *Router) Connect(f func(c *Context) error) { r.connect = f }

// Handler returns the router as an http.Handler, for plain net/http. It
// serves POST, GET and DELETE on whatever path it is mounted at.
func (r *Router) Handler() http.Handler { return r.handler }

// ServeHTTP serves the MCP endpoint.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.handler.ServeHTTP(w, req) }

// Mount registers the MCP endpoint at the group's prefix, so the group's
// middleware (authentication, logging, rate limits) runs before connect.
// OPTIONS is routed there too, so that a CORS middleware first in the
// group (middleware.CORS) answers browsers' preflights; without one the
// router answers OPTIONS with 405.
func (r *Router) Mount(g *echo.Group, middleware ...echo.MiddlewareFunc) {
	h := func(c echo.Context) error {
		req := c.Request()
		req = req.WithContext(context.WithValue(req.Context(), echoKey{}, c))
		r.handler.ServeHTTP(c.Response(), req)
		return nil
	}
	g.Match([]string{http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodOptions}, "", h, middleware...)
}

type echoKey struct{}

// Listeners returns the number of open subscriptions/listen streams.
func (r *Router) Listeners() int { return r.t.Listeners.Len() }

// Sessions returns the number of sessions this node holds.
func (r *Router) Sessions() int { return r.sessions.Len() }

// StreamsAttached returns how many GET streams are attached to this node.
func (r *Router) StreamsAttached() int { return r.sessions.Attached() }

// instructionsFor returns the instructions for a caller: connect's, or
// the router's.
func (r *Router) instructionsFor(s *grant) string {
	if s.instructions != nil {
		return *s.instructions
	}
	return r.instructions
}
