package transform_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/transform"
)

var search = mcp.Tool{
	Name:        "search",
	Title:       "Search",
	Description: "Search the index",
	InputSchema: json.RawMessage(`{"type":"object","properties":{
		"q":{"type":"string","description":"the query"},
		"limit":{"type":"integer"},
		"tenant":{"type":"string"},
		"debug":{"type":"boolean"}},
		"required":["q","tenant"],"additionalProperties":false}`),
	Annotations: &mcp.ToolAnnotations{Title: "Search"},
}

func schemaOf(t *testing.T, tool mcp.Tool) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestApplyRewritesToolAndSchema(t *testing.T) {
	x, err := transform.Apply(search, transform.Tool{
		Name:        "find",
		Title:       "Find",
		Description: "Find documents",
		Args: map[string]transform.Arg{
			"q":      {Name: "query", Description: "What to find"},
			"limit":  {Default: 10},
			"tenant": {Value: "acme"},
			"debug":  {Hide: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tool := x.Tool()
	if tool.Name != "find" || tool.Title != "Find" || tool.Description != "Find documents" || x.Original() != "search" {
		t.Fatalf("tool = %+v, original %q", tool, x.Original())
	}
	if tool.Annotations == nil || tool.Annotations.Title != "Search" {
		t.Errorf("annotations not kept: %+v", tool.Annotations)
	}
	s := schemaOf(t, tool)
	props := s["properties"].(map[string]any)
	if len(props) != 2 {
		t.Errorf("properties = %v, want query and limit", props)
	}
	if q := props["query"].(map[string]any); q["description"] != "What to find" || q["type"] != "string" {
		t.Errorf("query = %v", q)
	}
	if l := props["limit"].(map[string]any); l["default"] != float64(10) {
		t.Errorf("limit = %v", l)
	}
	if !reflect.DeepEqual(s["required"], []any{"query"}) {
		t.Errorf("required = %v", s["required"])
	}
	if s["additionalProperties"] != false || s["type"] != "object" {
		t.Errorf("other keywords lost: %v", s)
	}
	// The original is untouched.
	if !strings.Contains(string(search.InputSchema), `"tenant"`) {
		t.Error("original schema changed")
	}

	args, err := x.Arguments(map[string]any{"query": "go"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"q": "go", "limit": float64(10), "tenant": "acme"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("arguments = %v, want %v", args, want)
	}
	args, _ = x.Arguments(map[string]any{"query": "go", "limit": 3, "extra": true})
	if args["limit"] != 3 || args["extra"] != true {
		t.Errorf("caller's values not kept: %v", args)
	}
	raw, err := x.ArgumentsJSON(json.RawMessage(`{"query":"go"}`))
	if err != nil || string(raw) != `{"limit":10,"q":"go","tenant":"acme"}` {
		t.Errorf("ArgumentsJSON = %s, %v", raw, err)
	}
}

func TestArgumentsRefusesHiddenFixedAndOriginalNames(t *testing.T) {
	x, err := transform.Apply(search, transform.Tool{Args: map[string]transform.Arg{
		"q": {Name: "query"}, "tenant": {Value: "acme"}, "debug": {Hide: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"query": "go", "tenant": "evil"},
		{"query": "go", "debug": true},
		{"q": "go"},
	} {
		if _, err := x.Arguments(args); !errors.Is(err, transform.ErrHidden) {
			t.Errorf("Arguments(%v) = %v, want ErrHidden", args, err)
		}
	}
	if _, err := x.ArgumentsJSON(json.RawMessage(`[1]`)); err == nil {
		t.Error("ArgumentsJSON of an array: no error")
	}
}

func TestApplyRefusesBadTransformations(t *testing.T) {
	for name, tr := range map[string]transform.Tool{
		"unknown argument":      {Args: map[string]transform.Arg{"nope": {Hide: true}}},
		"required hidden":       {Args: map[string]transform.Arg{"q": {Hide: true}}},
		"two renamed to one":    {Args: map[string]transform.Arg{"q": {Name: "x"}, "limit": {Name: "x"}}},
		"renamed onto kept":     {Args: map[string]transform.Arg{"q": {Name: "limit"}}},
		"value that isn't JSON": {Args: map[string]transform.Arg{"tenant": {Value: func() {}}}},
	} {
		if _, err := transform.Apply(search, tr); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	bad := search
	bad.InputSchema = json.RawMessage(`{"properties":[]}`)
	if _, err := transform.Apply(bad, transform.Tool{Name: "x"}); err == nil {
		t.Error("bad schema: no error")
	}
}

func TestApplyWithoutArgsKeepsSchemaBytes(t *testing.T) {
	x, err := transform.Apply(search, transform.Tool{Description: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if string(x.Tool().InputSchema) != string(search.InputSchema) || x.Tool().Name != "search" {
		t.Errorf("tool = %+v", x.Tool())
	}
	args, err := x.Arguments(map[string]any{"q": "go", "tenant": "t"})
	if err != nil || len(args) != 2 {
		t.Errorf("arguments = %v, %v", args, err)
	}
}

func TestResult(t *testing.T) {
	x, _ := transform.Apply(search, transform.Tool{})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: "a"}}}
	if got, err := x.Result(context.Background(), res); got != res || err != nil {
		t.Errorf("Result without a function = %v, %v", got, err)
	}
	boom := errors.New("boom")
	x, _ = transform.Apply(search, transform.Tool{Result: func(_ context.Context, r *mcp.CallToolResult) (*mcp.CallToolResult, error) {
		if r.IsError {
			return nil, boom
		}
		r.Content = append(r.Content, &mcp.TextContent{Type: "text", Text: "b"})
		return r, nil
	}})
	got, err := x.Result(context.Background(), res)
	if err != nil || len(got.Content) != 2 {
		t.Errorf("Result = %v, %v", got, err)
	}
	if _, err := x.Result(context.Background(), &mcp.CallToolResult{IsError: true}); !errors.Is(err, boom) {
		t.Errorf("Result's error = %v", err)
	}
}
