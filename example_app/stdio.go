package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/stdio"
)

// stdioURL is the MCP endpoint as the app sees it on stdio: every message
// reaches the app as a request to localhost, so this is the audience a
// token must name.
const stdioURL = "http://localhost" + mcpPath

// runStdio serves the app to the one client that started the process,
// over stdin and stdout, until stdin closes or a signal comes. The whole
// Echo app serves each message, so auth.JWT, the rate limit and the
// connect step's plan filtering work as over HTTP; the caller's token is
// $SPECTER_TOKEN, or, for development, one the demo issuer signs for
// the demo user $SPECTER_USER names (basic, the default, or ultra).
func runStdio(cfg config) error {
	cfg.URL = stdioURL
	token, who := os.Getenv("SPECTER_TOKEN"), "the bearer token in $SPECTER_TOKEN"
	if token == "" {
		u := basicUser
		if os.Getenv("SPECTER_USER") == string(planUltra) {
			u = ultraUser
		}
		token = tokenFor(newIssuer(cfg.Secret, cfg.URL), u, grantedScopes(u))
		who = u.Name + " (" + string(u.Plan) + " plan), a dev default"
	}
	srv, r, err := newStdioServer(cfg, token)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.Log.Info().Str("as", who).Msg("serving MCP on stdio")
	err = srv.Run(ctx)
	shutdown(r, srv.Drain)
	return err
}

// newStdioServer builds the app and a stdio server of it whose every
// message carries token.
func newStdioServer(cfg config, token string) (*stdio.Server, *specter.Router, error) {
	e, r, err := newApp(cfg)
	if err != nil {
		return nil, nil, err
	}
	return &stdio.Server{
		Handler: e,
		Conn:    direct.Config{Path: mcpPath, Header: http.Header{"Authorization": {"Bearer " + token}}},
		Log:     cfg.Log,
		Drain:   stdio.DefaultDrain,
	}, r, nil
}

// shutdown ends the router's work and sessions within d.
func shutdown(r *specter.Router, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_ = r.Shutdown(ctx)
}
