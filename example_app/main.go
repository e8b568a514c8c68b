// Command example_app is a small Echo application that serves an MCP
// endpoint with Specter, in the manner of the example app of Elixir's
// Phantom MCP. It shows a connect step that authenticates API keys and
// filters tools by plan, a prompt, paginated and completable resources,
// plain and typed tools, a long-running tool that streams progress, and
// a tool that asks the user a question (elicitation).
//
// Run it with
//
//	go run ./example_app [-addr host:port]
//
// It listens on $SPECTER_ADDR (default 127.0.0.1:8080), serves MCP at
// /mcp and prints the endpoint URL, two demo API keys and a curl command
// to try. The keys are random unless $SPECTER_DEMO_BASIC_KEY and
// $SPECTER_DEMO_ULTRA_KEY set them.
package main

import (
	"context"
	"crypto/rand"
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
	"github.com/specter-mcp/specter/middleware"
)

// config is what the application is started with.
type config struct {
	Addr     string         // address to listen on
	BasicKey string         // API key of the demo user on the basic plan
	UltraKey string         // API key of the demo user on the ultra plan
	Log      zerolog.Logger // receives the router's and the request log's lines
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "example_app:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := config{
		Addr:     envOr("SPECTER_ADDR", "127.0.0.1:8080"),
		BasicKey: envOr("SPECTER_DEMO_BASIC_KEY", rand.Text()),
		UltraKey: envOr("SPECTER_DEMO_ULTRA_KEY", rand.Text()),
		Log:      newLogger(os.Stderr),
	}
	flag.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on (default from $SPECTER_ADDR)")
	flag.Parse()

	e, r := newApp(cfg)
	// Listening before printing the banner makes the printed URL right
	// even for port 0, and fails early when the port is taken.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	e.Listener = ln
	printBanner(os.Stdout, "http://"+displayAddr(ln.Addr())+"/mcp", cfg)

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

// newApp builds the Echo application with the MCP router mounted at /mcp.
// The caller serves the Echo instance and shuts the router down.
func newApp(cfg config) (*echo.Echo, *specter.Router) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// Event streams stay open for minutes, so the server sets no write
	// timeout (the router bounds each write itself); a client must still
	// send its headers promptly.
	e.Server.ReadHeaderTimeout = 10 * time.Second

	r := specter.NewRouter("specter-example", "1.0.0",
		specter.Title("Specter example"),
		specter.Instructions("Studies are readable as my_app://studies/{id} resources and with the get_study tool."),
		specter.Logger(cfg.Log),
	)
	studies := seedStudies(120)
	r.Connect(newKeyring(cfg.BasicKey, cfg.UltraKey).connect)
	declarePrompts(r)
	declareStudies(r, studies)
	declareTools(r, studies)

	r.Mount(e.Group("/mcp",
		echo.WrapMiddleware(middleware.RequestLog(cfg.Log)),
		echo.WrapMiddleware(middleware.Recover(cfg.Log)),
	))
	return e, r
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

// printBanner tells the person who started the server how to reach it.
func printBanner(w io.Writer, url string, cfg config) {
	fmt.Fprintf(w, `Specter example MCP server

  MCP endpoint   %s
  basic key      %s   tools: %s
  ultra key      %s   tools: %s

Initialize a session:

  curl -i %s \
    -H 'Authorization: Bearer %s' \
    -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1.0"}}}'

`, url,
		cfg.BasicKey, strings.Join(planBasic.tools(), ", "),
		cfg.UltraKey, strings.Join(planUltra.tools(), ", "),
		url, cfg.BasicKey)
}
