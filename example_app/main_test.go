package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

// The demo keys of the tests.
const (
	basicKey = "test-basic-key"
	ultraKey = "test-ultra-key"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startApp serves a new application until the test ends, then shuts the
// router down (ending sessions and their streams) and the server.
func startApp(t *testing.T) *httptest.Server {
	t.Helper()
	e, r := newApp(config{BasicKey: basicKey, UltraKey: ultraKey, Log: zerolog.New(zerolog.NewTestWriter(t))})
	srv := httptest.NewServer(e)
	// Cleanups run last first: the router ends its sessions and streams,
	// then the server closes, with the client's idle connections.
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.Shutdown(ctx); err != nil {
			t.Errorf("router shutdown: %v", err)
		}
	})
	return srv
}

func TestInitializeInstructionsNameThePlan(t *testing.T) {
	srv := startApp(t)
	for key, want := range map[string]string{basicKey: "basic plan", ultraKey: "ultra plan"} {
		var res struct {
			Instructions string `json:"instructions"`
		}
		if err := json.Unmarshal(newClient(t, srv, key).initialize(nil), &res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Instructions, want) {
			t.Errorf("instructions %q do not mention %q", res.Instructions, want)
		}
	}
}
