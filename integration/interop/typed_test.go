package interop

import (
	"errors"
	"testing"

	"github.com/specter-mcp/specter/client"
)

// TestJSONText: server-everything's get-env answers with the environment
// as JSON text, without structuredContent. With Options.JSONText,
// CallToolInto decodes that text; without it, there is nothing to decode.
func TestJSONText(t *testing.T) {
	c := ctx(t)
	env := []string{"INTEROP_MARK=seen"}
	plain := connect(t, stdio(t, env, everything, "stdio"), nil)
	if _, _, err := client.CallToolInto[map[string]string](c, plain, "get-env", nil); !errors.Is(err, client.ErrNoStructuredContent) {
		t.Fatalf("without JSONText: %v, want ErrNoStructuredContent", err)
	}
	cl := connect(t, stdio(t, env, everything, "stdio"), &client.Options{JSONText: true})
	got, res, err := client.CallToolInto[map[string]string](c, cl, "get-env", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["INTEROP_MARK"] != "seen" || len(res.StructuredContent) == 0 {
		t.Errorf("the environment: INTEROP_MARK=%q, structuredContent %d bytes", got["INTEROP_MARK"], len(res.StructuredContent))
	}
	// Text that is not JSON stays text.
	if _, _, err := client.CallToolInto[string](c, cl, "echo", map[string]string{"message": "hi"}); !errors.Is(err, client.ErrNoStructuredContent) {
		t.Errorf("echo with JSONText: %v, want ErrNoStructuredContent", err)
	}
}
