package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// TestValidateOutput checks structuredContent against the output schema
// the tool listed: a result that breaks it, or lacks it, is refused.
func TestValidateOutput(t *testing.T) {
	r := weatherRouter()
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	c := connect(t, client.InMemory(r.Handler()), nil)
	ok := &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"city":"Lyon","celsius":3}`)}
	if err := c.ValidateOutput("forecast", ok); err != nil {
		t.Fatalf("before listing, nothing is known of the tool: %v", err)
	}
	if _, err := c.ListTools(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if err := c.ValidateOutput("forecast", ok); err != nil {
		t.Errorf("a valid result: %v", err)
	}
	bad := &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"city":"Lyon","celsius":"warm"}`)}
	if err := c.ValidateOutput("forecast", bad); err == nil {
		t.Error("celsius as a string passed the output schema")
	}
	if err := c.ValidateOutput("forecast", &mcp.CallToolResult{}); err == nil {
		t.Error("a result without the structuredContent its schema promises passed")
	}
	f, _, err := client.CallToolInto[forecast](t.Context(), c, "forecast", map[string]any{"city": "Oslo"})
	if err != nil || f != (forecast{City: "Oslo", Celsius: 21.5}) {
		t.Errorf("CallToolInto: %+v, %v", f, err)
	}
}

// TestCallToolIntoKeepsTheToolsError: a tool that reports failure
// (isError) reaches CallToolInto's caller as a *client.ToolError with the
// tool's own words, over HTTP in both eras.
func TestCallToolIntoKeepsTheToolsError(t *testing.T) {
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("list_notes", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Error(specter.NewToolError("no notebook named " + p.String("notebook")))
	}, specter.Description("List the notes of a notebook"), params.String("notebook"))
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(func() {
		_ = r.Shutdown(context.Background())
		srv.Close()
	})
	eras(t, func(t *testing.T, v string) {
		c := connect(t, &client.HTTPTransport{URL: srv.URL}, &client.Options{Version: v})
		_, res, err := client.CallToolInto[[]string](t.Context(), c, "list_notes", map[string]any{"notebook": "work"})
		var te *client.ToolError
		if !errors.As(err, &te) || te.Tool != "list_notes" || te.Text != "no notebook named work" || te.Result != res || res == nil || !res.IsError {
			t.Fatalf("CallToolInto: %v (%#v), result %+v", err, te, res)
		}
		if want := "mcp client: tool list_notes failed: no notebook named work"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})
}
