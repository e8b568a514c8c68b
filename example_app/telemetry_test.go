package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the exporters may write from their own
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTelemetryWritesSpansAndMetrics(t *testing.T) {
	var out syncBuffer
	tel, stop, err := stdoutTelemetry(&out, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	srv := startAppWith(t, func(cfg *config) { cfg.Telemetry = tel })
	c := newClient(t, srv, basicUser)
	c.initialize(nil)
	if res, _ := c.callTool("foo", map[string]any{"bar": "baz"}, nil); res.IsError {
		t.Fatalf("foo: %+v", res)
	}
	// Shutting the providers down flushes the spans and the metrics.
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Name":"tools/call foo"`, `"mcp.server.operation.duration"`, `"specter.server.sessions"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("telemetry output lacks %s:\n%.2000s", want, out.String())
		}
	}
}
