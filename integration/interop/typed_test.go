package interop

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
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

// graph is server-memory's knowledge graph.
type graph struct {
	Entities []struct {
		Name         string   `json:"name"`
		EntityType   string   `json:"entityType"`
		Observations []string `json:"observations"`
	} `json:"entities"`
	Relations []json.RawMessage `json:"relations"`
}

// TestMemoryGraph: server-memory's tools declare output schemas, which
// CallToolInto checks before it decodes; its graph is also a resource,
// which a Host reads beside server-filesystem's tools.
func TestMemoryGraph(t *testing.T) {
	c := ctx(t)
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}
	h, err := host.New(c, []host.Server{
		{Name: "memory", Transport: stdio(t, env, memory)},
		{Name: "fs", Transport: stdio(t, nil, filesystem, t.TempDir())},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	cl := h.Client("memory")
	if _, err := h.Tools(c); err != nil { // lists the output schemas
		t.Fatal(err)
	}
	entity := map[string]any{"name": "Ada", "entityType": "person", "observations": []string{"wrote the first program"}}
	if _, err := cl.CallTool(c, "create_entities", map[string]any{"entities": []any{entity}}); err != nil {
		t.Fatal(err)
	}
	g, _, err := client.CallToolInto[graph](c, cl, "read_graph", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Entities) != 1 || g.Entities[0].Name != "Ada" || g.Entities[0].Observations[0] != "wrote the first program" {
		t.Errorf("the graph: %+v", g)
	}
	rr, err := h.ReadResource(c, "memory://knowledge-graph")
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text == nil || !strings.Contains(*rr.Contents[0].Text, `"Ada"`) {
		t.Errorf("the graph as a resource: %+v %v", rr, err)
	}
}
