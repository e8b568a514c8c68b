package stdio_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/stdio"
)

// BenchmarkToolsCall measures a tools/call round trip over stdio: a line
// written to the server's stdin until its answer's line is read off its
// stdout, in a session and on the 2026-07-28 wire.
func BenchmarkToolsCall(b *testing.B) {
	r := specter.NewRouter("bench", "1.0", specter.Logger(zerolog.Nop()))
	r.Tool("echo", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(p.String("text"))
	}, specter.Description("Echoes its text"), params.String("text", params.Required()))

	for _, era := range []struct {
		name, init, meta string
	}{
		{"session", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n", ""},
		{"2026-07-28", "", `,` + meta},
	} {
		b.Run(era.name, func(b *testing.B) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- (&stdio.Server{Handler: r}).Serve(context.Background(), inR, outW) }()
			out := bufio.NewReader(outR)
			if era.init != "" {
				_, _ = io.WriteString(inW, era.init)
				if _, err := out.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
			}
			req := make([]byte, 0, 256)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				req = fmt.Appendf(req[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}%s}}`+"\n", i+1, era.meta)
				if _, err := inW.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			inW.Close()
			go io.Copy(io.Discard, out)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			outW.Close()
		})
	}
	_ = r.Shutdown(context.Background())
}
