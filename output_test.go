package specter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// TestOutputMismatchAnswersABrokenResult checks, in both eras, that a
// result breaking the output schema reaches the client as what
// OutputMismatch makes of it, and is an internal error without it.
func TestOutputMismatchAnswersABrokenResult(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	for _, era := range benchEras {
		for _, c := range []struct {
			name, reply, want string
			mismatch          bool
		}{
			{"conforming", `{"n":1}`, `"structuredContent":{"n":1}`, true},
			{"broken", `{"n":"x"}`, `"isError":true`, true},
			{"not an object", `[1]`, `"text":"no structuredContent"`, true},
			{"broken, no handler", `{"n":"x"}`, `"code":-32603`, false},
		} {
			t.Run(era.name+"/"+c.name, func(t *testing.T) {
				r := specter.NewRouter("out", "1", specter.Logger(zerolog.Nop()))
				defer shutdown(t, r)
				opts := []specter.Option{specter.Description("Greet"), specter.OutputSchema(schema),
					params.String("name")}
				if c.mismatch {
					opts = append(opts, specter.OutputMismatch(func(res *mcp.CallToolResult, why error) *mcp.CallToolResult {
						msg := why.Error()
						if errors.Is(why, specter.ErrNoStructuredContent) {
							msg = "no structuredContent"
						}
						return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(msg)}, IsError: true}
					}))
				}
				r.Tool("greet", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
					return specter.Reply(json.RawMessage(c.reply))
				}, opts...)
				rec := era.call(t, r.Handler()).serve()
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(c.want)) {
					t.Fatalf("got %d %s, want %s", rec.Code, rec.Body, c.want)
				}
			})
		}
	}
}
