package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/openapi"
	"github.com/specter-mcp/specter/stdio"
)

const openapiUsage = `Usage: specter openapi DOC [--base-url URL] [--http ADDR] [--resources] [--timeout D]

Serves the operations of the OpenAPI 3.0 or 3.1 document DOC (a file path
or an http(s) URL, JSON or YAML) as an MCP server: each operation a tool
named by its operationId, calling the API at the base URL. Over stdio by
default; over Streamable HTTP at http://ADDR/mcp with --http.

Credentials come from the environment and are sent with every call:
  SPECTER_OPENAPI_TOKEN          sent as "Authorization: Bearer <token>"
  SPECTER_OPENAPI_HEADER_<NAME>  sent as header NAME, underscores as
                                 dashes (SPECTER_OPENAPI_HEADER_X_API_KEY
                                 is X-Api-Key)

Options:
`

func runOpenAPI(ctx context.Context, args []string, s streams) error {
	stderr := s.Err
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, openapiUsage)
		fs.PrintDefaults()
	}
	baseURL := fs.String("base-url", "", "where calls go (default: the document's first server)")
	addr := fs.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	resources := fs.Bool("resources", false, "serve GETs as resources and resource templates where they can be")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on each call to the API")
	// The document may come before or after the flags.
	var doc string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		doc, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	rest := fs.Args()
	if doc == "" && len(rest) > 0 {
		doc, rest = rest[0], rest[1:]
	}
	if doc == "" || len(rest) > 0 {
		fs.Usage()
		return errUsage
	}

	d, err := openapi.Read(ctx, doc, nil)
	if err != nil {
		return err
	}
	o := openapi.Options{BaseURL: *baseURL, Timeout: *timeout, Credentials: openapi.HeaderCredentials(envHeader(os.Environ()))}
	if *resources {
		o.RouteMaps = openapi.ResourceRouteMaps
	}
	log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	r := specter.NewRouter(orDefault(d.Title, "openapi"), orDefault(d.Version, "0"), specter.Logger(log))
	if err := openapi.Mount(r, d, o); err != nil {
		return err
	}
	if *addr == "" {
		srv := &stdio.Server{Handler: r.Handler(), Conn: direct.Config{Path: "/mcp"}, Log: log}
		err := srv.Run(ctx)
		shutdown(r)
		return err
	}
	return serveHTTP(ctx, r, *addr, stderr)
}

func serveHTTP(ctx context.Context, r *specter.Router, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", r.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "specter openapi: serving MCP at http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown(r)
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func shutdown(r *specter.Router) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.Shutdown(ctx)
}

// envHeader is the header the environment's credentials make.
func envHeader(environ []string) http.Header {
	h := http.Header{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "SPECTER_OPENAPI_TOKEN" && v != "":
			h.Set("Authorization", "Bearer "+v)
		case strings.HasPrefix(k, "SPECTER_OPENAPI_HEADER_") && len(k) > len("SPECTER_OPENAPI_HEADER_"):
			h.Set(strings.ReplaceAll(strings.TrimPrefix(k, "SPECTER_OPENAPI_HEADER_"), "_", "-"), v)
		}
	}
	return h
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
