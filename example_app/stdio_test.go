package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"

	"github.com/rs/zerolog"
)

// On stdio the whole app serves each message: auth.JWT checks the token
// the process was started with, and connect filters the tools by its plan.
func TestStdioPlans(t *testing.T) {
	cfg := config{URL: stdioURL, Secret: testSecret, Log: zerolog.New(zerolog.NewTestWriter(t))}
	is := newIssuer(cfg.Secret, cfg.URL)
	for _, tc := range []struct {
		name  string
		token string
		want  []string // tools listed; nil: refused
	}{
		// The test's client renders no MCP Apps: the dashboard's own tools are hidden.
		{"basic", tokenFor(is, basicUser, grantedScopes(basicUser)), visibleTools(planBasic, false)},
		{"ultra", tokenFor(is, ultraUser, grantedScopes(ultraUser)), visibleTools(planUltra, false)},
		{"a token of another issuer", tokenFor(newIssuer([]byte("another secret of at least 32 bytes!"), cfg.URL), ultraUser, nil), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, r, err := newStdioServer(cfg, tc.token)
			if err != nil {
				t.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := srv.Serve(context.Background(), inR, outW)
				outW.Close()
				done <- err
			}()
			_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
			line, err := bufio.NewReader(outR).ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			inW.Close()
			go io.Copy(io.Discard, outR)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			shutdown(r, srv.Drain)

			var msg struct {
				Result struct{ Tools []struct{ Name string } }
				Error  *struct{ Code int }
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if tc.want == nil {
				if msg.Error == nil {
					t.Fatalf("a bad token was served: %s", line)
				}
				return
			}
			var got []string
			for _, tool := range msg.Result.Tools {
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("tools = %v, want %v (%s)", got, want, line)
			}
		})
	}
}
