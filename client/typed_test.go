package client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
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
