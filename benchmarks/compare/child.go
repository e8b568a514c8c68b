package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"
)

// serveChild runs one server in this process, the child the harness
// measures. It prints its address on stdout, then "gc" each time SIGUSR1
// has made it collect and hand freed memory back to the OS (so that VmRSS
// reads live memory), and exits on SIGTERM, writing the CPU profile if
// one was asked for.
func serveChild(name, redisURL, cpuProfile string) error {
	s, ok := serverNamed(name)
	if !ok {
		return fmt.Errorf("no server named %q", name)
	}
	h, release, err := s.build(redisURL)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer release()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, ln.Addr().String())
	out.Flush()
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	for {
		select {
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		case s := <-sig:
			if s != syscall.SIGUSR1 {
				// Open GET streams never end by themselves: close rather
				// than wait for them.
				_ = srv.Close()
				return nil
			}
			debug.FreeOSMemory() // collects first
			fmt.Fprintln(out, "gc")
			out.Flush()
		}
	}
}
