// Command echov5 is the smallest Specter server on Echo v5: a router with
// one tool and an audit middleware, mounted on an Echo v5 group whose
// middleware runs before connect. It shows what changes from Echo v4
// (package echov5: Mount, Context, JWT) and what does not (everything
// else).
//
//	go run ./example_app/echov5 [-addr host:port]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/echov5"
	"github.com/specter-mcp/specter/params"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	log := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Timestamp().Logger()
	e, r := newApp(log)
	srv := &http.Server{Addr: *addr, Handler: e, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	fmt.Printf("MCP endpoint http://%s/mcp\n", *addr)
	select {
	case err := <-served:
		fmt.Fprintln(os.Stderr, "echov5:", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.Shutdown(shutdown) // running work first, then sessions and their streams
	if err := srv.Shutdown(shutdown); err != nil || !errors.Is(<-served, http.ErrServerClosed) {
		os.Exit(1)
	}
}

// newApp mounts the router at /mcp of an Echo v5 application.
func newApp(log zerolog.Logger) (*echo.Echo, *specter.Router) {
	r := specter.NewRouter("echov5-example", "1.0.0", specter.Logger(log))
	// Call middleware: every tool, prompt and resource call, in both eras.
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			start := time.Now()
			res := next(req, c)
			log.Info().Str("tool", req.Declaration.Name).Dur("took", time.Since(start)).Bool("failed", res.Err() != nil).Msg("mcp call")
			return res
		}
	})
	r.Tool("greet", func(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		// The Echo v5 context of the HTTP request, with what the group's
		// middleware put there.
		tenant, _ := echov5.Context(c).Get("tenant").(string)
		return specter.Reply(fmt.Sprintf("Hello, %s, from %s!", p.String("name"), tenant))
	}, specter.Description("Greet someone"), params.String("name", params.Required()))

	e := echo.New()
	echov5.Mount(r, e.Group("/mcp", func(next echo.HandlerFunc) echo.HandlerFunc {
		// Group middleware runs before connect: authentication (echov5.JWT),
		// rate limits, or, here, the tenant the request is for.
		return func(c *echo.Context) error {
			tenant := c.Request().Header.Get("X-Tenant")
			if tenant == "" {
				tenant = "the default tenant"
			}
			c.Set("tenant", tenant)
			return next(c)
		}
	}))
	return e, r
}
