package gateway

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
	"github.com/specter-mcp/specter/transform"
)

// CallerServer is a server the gateway connects to once per caller, with
// credentials for that caller, so that the server's own per-user rights
// (the tools it lists, the scopes it checks) hold through the gateway.
// Its tools are re-exported; each caller sees and calls those the server
// lists to that caller's connection.
//
// The caller's token is never passed on: the credentials come from
// Exchange (OAuth 2.0 Token Exchange at the server's authorization
// server) or from Credential, the application's own.
type CallerServer struct {
	// URL is the server's Streamable HTTP endpoint.
	URL string
	// Exchange, if set, is the gateway's registration at the server's
	// authorization server: each caller's bearer token is exchanged there
	// (RFC 8693) for a token for the server, which the server's 401
	// challenge leads to.
	Exchange *oauth.Client
	// Issuers are the authorization servers (issuer identifiers, as their
	// metadata gives them) where Exchange may send the caller's token and
	// the gateway's secret; the server's metadata naming any other is
	// refused. Required with Exchange.
	Issuers []string
	// Credential, if set instead, returns the bearer token the gateway
	// presents to the server for caller, on every request (cache within
	// it if that costs).
	Credential func(ctx context.Context, caller Caller) (string, error)
	// HTTPClient sends the requests (and token requests); nil means
	// http.DefaultClient's transport.
	HTTPClient *http.Client
	// Options configure each connection; the server's requests are
	// relayed to the caller (Relay).
	Options *client.Options
	// MaxConnections bounds the open connections (default 100): the
	// least recently used idle one is closed to make room, and a caller
	// beyond the bound, with all others busy, is refused.
	MaxConnections int
	// IdleTimeout closes a connection unused for that long (default five
	// minutes).
	IdleTimeout time.Duration
}

// Caller is who calls the gateway: the principal authentication put on
// the request, and the bearer token it presented.
type Caller struct {
	Principal *principal.Principal // nil without authentication
	Token     string               // empty without a bearer token
}

// key identifies the caller's connection: its principal and token, so
// that a new token (new rights) gets a new connection.
func (c Caller) key() string {
	var id string
	if c.Principal != nil {
		id = c.Principal.ID
	}
	sum := sha256.Sum256([]byte(c.Token))
	return id + "\x00" + hex.EncodeToString(sum[:])
}

// callerOf reads the caller of a request.
func callerOf(c *specter.Context) Caller {
	out := Caller{Principal: c.Caller()}
	if r := c.HTTPRequest(); r != nil {
		if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			out.Token = strings.TrimSpace(token)
		}
	}
	return out
}

// ErrTooManyCallers is the error for a caller that needs a connection
// when MaxConnections are open and busy.
var ErrTooManyCallers = errors.New("gateway: too many callers connected to the server")

// pool holds one server's connections, by caller.
type pool struct {
	name string
	cfg  CallerServer
	// declare declares the tools a connection lists that are new to the
	// router; it returns the router's names for the connection's tools.
	declare func(tools []mcp.Tool) (map[string]*transform.Transformed, error)

	mu      sync.Mutex
	conns   map[string]*conn
	lru     *list.List // of *conn, most recently used first
	closed  bool
	closing sync.WaitGroup // connections being closed
}

// conn is one caller's connection.
type conn struct {
	key  string
	elem *list.Element
	busy int         // calls in flight
	idle *time.Timer // closes it
	p    *pool

	ready chan struct{} // closed once connected (or failed)
	c     *client.Client
	err   error

	mu    sync.Mutex
	tools map[string]*transform.Transformed // by router name
	stale bool                              // the server's tool list changed
}

func newPool(name string, cfg CallerServer, declare func([]mcp.Tool) (map[string]*transform.Transformed, error)) *pool {
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 100
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 5 * time.Minute
	}
	return &pool{name: name, cfg: cfg, declare: declare, conns: map[string]*conn{}, lru: list.New()}
}

// acquire returns the caller's connection, connecting if it has none, and
// a function to call when done with it.
func (p *pool) acquire(ctx context.Context, caller Caller) (*conn, func(), error) {
	key := caller.key()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, errors.New("gateway: closed")
	}
	cn := p.conns[key]
	if cn == nil {
		if err := p.makeRoom(); err != nil {
			p.mu.Unlock()
			return nil, nil, err
		}
		cn = &conn{key: key, p: p, ready: make(chan struct{})}
		cn.elem = p.lru.PushFront(cn)
		p.conns[key] = cn
		go cn.connect(caller) // its own context: the connection outlives this request
	} else {
		p.lru.MoveToFront(cn.elem)
	}
	cn.busy++
	if cn.idle != nil {
		cn.idle.Stop()
	}
	p.mu.Unlock()
	release := func() { p.release(cn) }
	select {
	case <-cn.ready:
	case <-ctx.Done():
		release()
		return nil, nil, ctx.Err()
	}
	if cn.err != nil {
		release()
		p.drop(cn)
		return nil, nil, cn.err
	}
	return cn, release, nil
}

// makeRoom closes the least recently used idle connection when the pool
// is full; with p.mu held.
func (p *pool) makeRoom() error {
	if len(p.conns) < p.cfg.MaxConnections {
		return nil
	}
	for e := p.lru.Back(); e != nil; e = e.Prev() {
		if cn := e.Value.(*conn); cn.busy == 0 {
			p.remove(cn)
			return nil
		}
	}
	return fmt.Errorf("%w %s (%d)", ErrTooManyCallers, p.name, p.cfg.MaxConnections)
}

// remove takes cn out of the pool and closes it; with p.mu held.
func (p *pool) remove(cn *conn) {
	if p.conns[cn.key] != cn {
		return
	}
	delete(p.conns, cn.key)
	p.lru.Remove(cn.elem)
	if cn.idle != nil {
		cn.idle.Stop()
	}
	p.closing.Go(cn.close)
}

func (p *pool) drop(cn *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.remove(cn)
}

func (p *pool) release(cn *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cn.busy--
	if cn.busy > 0 || p.conns[cn.key] != cn {
		return
	}
	if cn.idle == nil {
		cn.idle = time.AfterFunc(p.cfg.IdleTimeout, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if cn.busy == 0 {
				p.remove(cn)
			}
		})
		return
	}
	cn.idle.Reset(p.cfg.IdleTimeout)
}

// closeAll closes every connection.
func (p *pool) closeAll() {
	p.mu.Lock()
	p.closed = true
	conns := make([]*conn, 0, len(p.conns))
	for _, cn := range p.conns {
		conns = append(conns, cn)
	}
	for _, cn := range conns {
		p.remove(cn)
	}
	p.mu.Unlock()
	p.closing.Wait()
}

// connect opens the caller's connection and reads its tools.
func (cn *conn) connect(caller Caller) {
	defer close(cn.ready)
	p := cn.p
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc, err := p.httpClient(caller)
	if err != nil {
		cn.err = err
		return
	}
	opts := Relay(p.cfg.Options)
	notify := opts.OnNotification
	opts.OnNotification = func(method string, params json.RawMessage) {
		if method == mcp.NotificationToolsChanged {
			cn.mu.Lock()
			cn.stale = true
			cn.mu.Unlock()
		}
		if notify != nil {
			notify(method, params)
		}
	}
	c, err := client.Connect(ctx, &client.HTTPTransport{URL: p.cfg.URL, Client: hc}, opts)
	if err != nil {
		cn.err = fmt.Errorf("gateway: server %s for caller: %w", p.name, err)
		return
	}
	cn.c = c
	if _, err := cn.list(ctx); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		cn.c, cn.err = nil, err
	}
}

// list returns the router names of the tools the server lists to this
// caller, listing them again after the server said they changed.
func (cn *conn) list(ctx context.Context) (map[string]*transform.Transformed, error) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.tools != nil && !cn.stale {
		return cn.tools, nil
	}
	var tools []mcp.Tool
	for t, err := range cn.c.Tools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("gateway: server %s: %w", cn.p.name, err)
		}
		tools = append(tools, t)
	}
	named, err := cn.p.declare(tools)
	if named == nil {
		return nil, err
	}
	cn.tools, cn.stale = named, false
	return named, nil
}

func (cn *conn) close() {
	<-cn.ready
	if cn.c != nil {
		_ = cn.c.Close(context.Background())
	}
}

// httpClient makes the HTTP client of a caller's connection: it presents
// the exchanged token or the application's credential, never the
// caller's own.
func (p *pool) httpClient(caller Caller) (*http.Client, error) {
	base := http.DefaultTransport
	if p.cfg.HTTPClient != nil && p.cfg.HTTPClient.Transport != nil {
		base = p.cfg.HTTPClient.Transport
	}
	switch {
	case p.cfg.Exchange != nil:
		if caller.Token == "" {
			return nil, fmt.Errorf("gateway: server %s needs the caller's token to exchange, and the caller presented none", p.name)
		}
		tr, err := oauth.New(oauth.Config{HTTPClient: p.cfg.HTTPClient, Grant: oauth.TokenExchange{
			Client:       *p.cfg.Exchange,
			SubjectToken: func(context.Context) (string, error) { return caller.Token, nil },
			Issuers:      p.cfg.Issuers,
		}})
		if err != nil {
			return nil, err
		}
		tr.Base = base
		return &http.Client{Transport: tr}, nil
	case p.cfg.Credential != nil:
		return &http.Client{Transport: credentialTransport{base: base, caller: caller, credential: p.cfg.Credential}}, nil
	}
	return nil, fmt.Errorf("gateway: server %s: a CallerServer needs Exchange or Credential", p.name)
}

// credentialTransport presents the application's credential for a caller.
type credentialTransport struct {
	base       http.RoundTripper
	caller     Caller
	credential func(ctx context.Context, caller Caller) (string, error)
}

func (t credentialTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	token, err := t.credential(r.Context(), t.caller)
	if err != nil {
		return nil, fmt.Errorf("gateway: credential: %w", err)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return t.base.RoundTrip(r)
}
