// Command example_app is a small Echo application that serves an MCP
// endpoint with Specter, in the manner of the example app of Elixir's
// Phantom MCP. It shows OAuth bearer tokens verified by auth.JWT, RFC 9728
// protected resource metadata, a connect step that filters tools by the
// plan named in the token, a tool that needs a scope (step-up), a rate
// limit per caller, a prompt, paginated and completable resources, plain
// and typed tools, a long-running tool that streams progress, and a tool
// that asks the user a question (elicitation).
//
// Run it with
//
//	go run ./example_app [-addr host:port] [-telemetry]
//
// or, for a desktop client that starts it as a subprocess, with
//
//	go run ./example_app -stdio
//
// which serves MCP over stdin and stdout as the caller whose token is
// $SPECTER_TOKEN, or else as a demo user ($SPECTER_USER: basic, the
// default, or ultra), with logs on stderr.
//
// It listens on $SPECTER_ADDR (default 127.0.0.1:8080), serves MCP at /mcp
// and prints the endpoint URL, two demo tokens (a basic and an ultra
// user, valid for 24 hours) and a curl command to try. A demo issuer
// built into the app signs the tokens with HS256 and the secret
// $SPECTER_JWT_SECRET (at least 32 bytes); when it is unset the app makes
// up a random one and prints it, so that the next start can reuse it and
// keep the tokens valid.
//
// With -telemetry, the app writes OpenTelemetry spans of every MCP request
// and, every 30 seconds, its metrics to stdout, or to stderr with -stdio
// (package specterotel).
//
// With $SPECTER_CORS_ORIGINS set (comma-separated origins, such as
// http://localhost:6274 for the MCP Inspector), pages on those origins may
// call the endpoint from a browser: their preflights are answered and
// they can read Mcp-Session-Id and WWW-Authenticate.
//
// With $REDIS_URL set, instances share sessions through Redis and act as
// one server behind a load balancer; give them the same
// $SPECTER_JWT_SECRET and set $SPECTER_PUBLIC_URL to the URL clients use.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/middleware"
	specterotel "github.com/specter-mcp/specter/specterotel"
)

// mcpPath is where the MCP endpoint is mounted.
const mcpPath = "/mcp"

// Defaults of the per-caller rate limit of MCP requests.
const (
	defaultRate  = 10 // requests per second, in the long run
	defaultBurst = 30 // requests at once
)

// config is what the application is started with.
type config struct {
	Addr string // address to listen on
	// URL is the MCP endpoint's URL as clients reach it: the resource
	// identifier that tokens must name as their audience.
	URL string
	// Secret is the HS256 secret of the demo issuer.
	Secret []byte
	// Rate and Burst limit each caller's MCP requests (0: the defaults).
	Rate  float64
	Burst int
	Log   zerolog.Logger // receives the router's and the request log's lines
	// Backplane, when set, shares sessions with the other instances
	// using it (REDIS_URL); nil keeps them in this process.
	Backplane backplane.Backplane
	// Telemetry, when set, receives the router's spans and metrics.
	Telemetry *specterotel.Telemetry
	// Origins are the web origins whose pages may call the endpoint from a
	// browser ($SPECTER_CORS_ORIGINS, comma-separated): the router's
	// DNS-rebinding guard admits them and CORS lets the pages read the
	// answers. None by default.
	Origins []string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "example_app:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := config{
		Addr:    envOr("SPECTER_ADDR", "127.0.0.1:8080"),
		Log:     newLogger(os.Stderr),
		Origins: strings.FieldsFunc(os.Getenv("SPECTER_CORS_ORIGINS"), func(r rune) bool { return r == ',' || r == ' ' }),
	}
	flag.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on (default from $SPECTER_ADDR)")
	telemetry := flag.Bool("telemetry", false, "write OpenTelemetry spans and metrics to stdout (stderr with -stdio)")
	onStdio := flag.Bool("stdio", false, "serve MCP over stdin and stdout, for a desktop client that starts the app")
	flag.Parse()
	if *telemetry {
		out := os.Stdout
		if *onStdio {
			out = os.Stderr // stdout carries MCP
		}
		tel, stop, err := stdoutTelemetry(out, 30*time.Second)
		if err != nil {
			return err
		}
		defer stop(context.Background())
		cfg.Telemetry = tel
	}
	secret, random, err := loadSecret(os.Getenv("SPECTER_JWT_SECRET"))
	if err != nil {
		return err
	}
	cfg.Secret = secret
	if *onStdio {
		return runStdio(cfg)
	}

	// Listening before building the app makes the URL, and so the tokens'
	// audience, right even for port 0, and fails early when the port is
	// taken.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	cfg.URL = "http://" + displayAddr(ln.Addr()) + mcpPath
	if public := os.Getenv("SPECTER_PUBLIC_URL"); public != "" {
		// Behind a load balancer, clients (and tokens) name its URL.
		cfg.URL = public
	}
	if url := os.Getenv("REDIS_URL"); url != "" {
		bp, err := redisbp.New(context.Background(), url)
		if err != nil {
			ln.Close()
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		defer bp.Close()
		cfg.Backplane = bp
	}
	e, r, err := newApp(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	e.Listener = ln
	if err := printBanner(os.Stdout, cfg, random); err != nil {
		ln.Close()
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- e.Start("") }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the default way

	cfg.Log.Info().Msg("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The router goes first: it lets running work finish and then ends
	// the sessions, which closes their event streams, so that the HTTP
	// server finds its connections idle.
	if err := r.Shutdown(shutdownCtx); err != nil {
		cfg.Log.Warn().Err(err).Msg("mcp work did not finish in time")
	}
	if err := e.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newApp builds the Echo application with the MCP router mounted at /mcp
// behind auth.JWT and a rate limit, and the protected resource metadata
// at its well-known URLs. The caller serves the Echo instance and shuts
// the router down.
func newApp(cfg config) (*echo.Echo, *specter.Router, error) {
	authCfg := authConfig(newIssuer(cfg.Secret, cfg.URL))
	verifier, err := auth.NewVerifier(authCfg)
	if err != nil {
		return nil, nil, err
	}
	rate, burst := cfg.Rate, cfg.Burst
	if rate == 0 {
		rate = defaultRate
	}
	if burst == 0 {
		burst = defaultBurst
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	setTimeouts(e.Server)

	// Every instance derives the same requestState key from the shared
	// secret, so a multi round-trip request may retry on any of them.
	stateKey := sha256.Sum256(append([]byte("specter-example requestState\x00"), cfg.Secret...))
	opts := []specter.RouterOption{
		specter.Title("Specter example"),
		specter.Instructions("Studies are readable as my_app://studies/{id} resources and with the get_study tool."),
		specter.Logger(cfg.Log),
		specter.StateKey(stateKey[:]),
	}
	bp := cfg.Backplane
	if cfg.Telemetry != nil {
		if bp == nil {
			bp = backplane.NewMemory()
		}
		bp = cfg.Telemetry.Backplane(bp)
		opts = append(opts, cfg.Telemetry.Instrument())
	}
	if bp != nil {
		opts = append(opts, specter.Backplane(bp))
	}
	if len(cfg.Origins) > 0 {
		opts = append(opts, specter.AllowedOrigins(cfg.Origins...))
	}
	r := specter.NewRouter("specter-example", "1.0.0", opts...)
	if cfg.Telemetry != nil {
		if err := cfg.Telemetry.Observe(r); err != nil {
			return nil, nil, err
		}
	}
	studies := seedStudies(120)
	r.Connect(connect)
	declarePrompts(r)
	declareStudies(r, studies)
	declareTools(r, studies)
	declareApps(r, studies)

	// Clients find the authorization server here, without a token.
	auth.MountMetadata(e, authCfg)
	// The request log comes first so that it records refused requests
	// too; CORS, for pages of cfg.Origins, comes before authentication,
	// since a browser's preflight carries no token and a page must be able
	// to read a 401's challenge; the rate limit comes after
	// authentication, so that it counts per caller rather than per IP
	// address.
	group := []echo.MiddlewareFunc{
		echo.WrapMiddleware(middleware.RequestLog(cfg.Log)),
		echo.WrapMiddleware(middleware.Recover(cfg.Log)),
	}
	if len(cfg.Origins) > 0 {
		group = append(group, echo.WrapMiddleware(middleware.CORS(cfg.Origins...)))
	}
	group = append(group, verifier.EchoMiddleware(), echo.WrapMiddleware(middleware.RateLimit(rate, burst)))
	r.Mount(e.Group(mcpPath, group...))
	// The REST API, and its routes as tools.
	mountAPI(e, authenticated(verifier.EchoMiddleware()), studies)
	if err := declareAPI(r, e); err != nil {
		return nil, nil, err
	}
	return e, r, nil
}

// setTimeouts gives the server the bounds a production server needs
// against slow and idle clients. Event streams stay open for minutes, so
// it sets neither ReadTimeout nor WriteTimeout, which would cut them: the
// router bounds the time to read a request's body (specter.BodyReadTimeout,
// 30 s by default) and each write to a client (specter.WriteTimeout).
func setTimeouts(s *http.Server) {
	s.ReadHeaderTimeout = 10 * time.Second // headers must come promptly
	s.IdleTimeout = 2 * time.Minute        // keep-alive connections between requests
	s.MaxHeaderBytes = 64 << 10            // MCP headers are small; a bearer token is a few KiB
}

// newLogger writes readable lines for a person at a terminal, colored
// only when w is one, at info level: the router logs each session's end
// at debug.
func newLogger(w *os.File) zerolog.Logger {
	fi, err := w.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return zerolog.New(zerolog.ConsoleWriter{Out: w, NoColor: !tty}).Level(zerolog.InfoLevel).With().Timestamp().Logger()
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// displayAddr is the address a local client dials: a wildcard bind
// ("[::]:8080") is reachable as localhost, which the router's DNS
// rebinding guard accepts.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// printBanner tells the person who started the server how to reach it:
// the endpoint, the secret when it was made up, and a token for each demo
// user.
func printBanner(w io.Writer, cfg config, randomSecret bool) error {
	is := newIssuer(cfg.Secret, cfg.URL)
	basic := tokenFor(is, basicUser, grantedScopes(basicUser))
	ultra := tokenFor(is, ultraUser, grantedScopes(ultraUser))
	metadataURL, err := auth.MetadataURL(cfg.URL)
	if err != nil {
		return err
	}
	secret := "from $SPECTER_JWT_SECRET"
	if randomSecret {
		secret = "random; to keep the tokens valid across restarts, start again with\n                 SPECTER_JWT_SECRET=" + string(cfg.Secret)
	}
	scopes := func(u user) string {
		if s := strings.Join(grantedScopes(u), " "); s != "" {
			return s
		}
		return "(none)"
	}
	_, err = fmt.Fprintf(w, `Specter example MCP server

  MCP endpoint   %s
  metadata       %s
  token issuer   %s (HS256, 24 h tokens)
  JWT secret     %s

Demo bearer tokens:

  basic plan (%s)   scopes: %s   tools: %s
  %s

  ultra plan (%s)   scopes: %s   tools: %s (long_task needs %s)
  %s

Initialize a session:

  curl -i %s \
    -H 'Authorization: Bearer %s' \
    -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1.0"}}}'

Or list the tools with no session (MCP 2026-07-28: every request carries
its _meta, and the headers repeat the version and the method):

  curl -i %s \
    -H 'Authorization: Bearer %s' \
    -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/list' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'

`, cfg.URL, metadataURL, is.Issuer, secret,
		basicUser.Name, scopes(basicUser), strings.Join(planBasic.tools(), ", "), basic,
		ultraUser.Name, scopes(ultraUser), strings.Join(planUltra.tools(), ", "), scopeJobs, ultra,
		cfg.URL, basic, cfg.URL, basic)
	return err
}
