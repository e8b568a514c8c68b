package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/inspector"
)

// runWeb serves the web inspector of t on addr until ctx ends (Ctrl-C),
// opening it in the browser when open is set.
func runWeb(ctx context.Context, t *target, addr string, open bool, s streams) error {
	if err := t.check(); err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	pinned, err := t.protocol()
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	in := inspector.New(inspector.Config{
		Target: t.name(),
		Connect: func(ctx context.Context, opts client.Options) (*client.Client, error) {
			if opts.Version == "" {
				opts.Version = pinned
			}
			tr, err := t.transport(s.Err)
			if err != nil {
				return nil, err
			}
			return client.Connect(ctx, tr, &opts)
		},
	})
	defer in.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: in, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(s.Out, "Inspecting %s at %s\nPress Ctrl-C to stop.\n", t.name(), url)
	if open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintln(s.Err, "(could not open a browser; open the address above yourself)")
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// The page's event streams end with the inspector.
	in.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
