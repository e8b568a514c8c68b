package main

import (
	"context"
	"os"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/stdio"
)

// serveStdio serves r over stdin and stdout until stdin closes or ctx
// ends (a signal), and returns the exit status. With $SPECTER_LEAK_CHECK
// set (and the memory backplane), it then checks that no goroutine is
// left, for the tests that end it while a tool runs: 3 if one is.
func serveStdio(ctx context.Context, stop context.CancelFunc, r *specter.Router, framed bool, logger zerolog.Logger) int {
	srv := &stdio.Server{Handler: r, Log: logger}
	if d, err := time.ParseDuration(os.Getenv("SPECTER_STDIO_SETTLE")); err == nil {
		srv.Settle = d // a test's client on a loaded machine may read late
	}
	if framed {
		srv.Framing = stdio.ContentLength
	}
	logger.Info().Int("pid", os.Getpid()).Msg("conformance fixture serving on stdio")
	if err := srv.Run(ctx); err != nil {
		logger.Error().Err(err).Msg("stdio")
		return 1
	}
	signalled := ctx.Err() != nil
	if signalled {
		logger.Info().Msg("signal; exiting")
	} else {
		logger.Info().Msg("stdin closed; exiting")
	}
	stop()
	if os.Getenv("SPECTER_LEAK_CHECK") == "" {
		return 0
	}
	var opts []goleak.Option
	if signalled {
		// The read of stdin in progress, which Serve leaves to the exit.
		opts = append(opts, goleak.IgnoreAnyFunction("github.com/specter-mcp/specter/stdio.(*Server).Serve.func1"))
	}
	if err := goleak.Find(opts...); err != nil {
		logger.Error().Err(err).Msg("goroutines left at exit")
		return 3
	}
	logger.Info().Msg("no goroutine left at exit")
	return 0
}
