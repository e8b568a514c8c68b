// Command server is the conformance fixture: the MCP server the official
// conformance suite expects (tools, prompts and resources named test_*),
// built with Specter. It serves on $SPECTER_ADDR (default 127.0.0.1:3001)
// at /mcp, or, with -stdio, over stdin and stdout (-content-length for
// LSP-style frames), logging to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
)

func main() {
	onStdio := flag.Bool("stdio", false, "serve over stdin and stdout instead of HTTP")
	framed := flag.Bool("content-length", false, "with -stdio, frame messages with Content-Length headers")
	flag.Parse()
	addr := os.Getenv("SPECTER_ADDR")
	if addr == "" {
		addr = "127.0.0.1:3001"
	}
	level := zerolog.WarnLevel
	if *onStdio {
		level = zerolog.DebugLevel // stderr is the operator's: say what happens
	}
	logger := zerolog.New(os.Stderr).With().Timestamp().Logger().Level(level)
	opts := []specter.RouterOption{specter.Logger(logger)}
	if url := os.Getenv("REDIS_URL"); url != "" {
		// Several fixture processes on one Redis are one server.
		bp, err := redisbp.New(context.Background(), url)
		if err != nil {
			log.Fatal(err)
		}
		defer bp.Close()
		opts = append(opts, specter.Backplane(bp))
		if key := os.Getenv("SPECTER_STATE_KEY"); key != "" {
			opts = append(opts, specter.StateKey([]byte(key)))
		}
		log.Printf("sessions are shared through Redis")
	}
	r := fixture.New(opts...)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *onStdio {
		if code := serveStdio(ctx, stop, r, *framed, logger); code != 0 {
			os.Exit(code)
		}
		return
	}

	mux := http.NewServeMux()
	mux.Handle("/mcp", r.Handler())
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(shutdown)
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("conformance fixture serving on http://%s/mcp", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
