package integration

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/params"
)

func paramsFields() []specter.Option {
	return []specter.Option{
		params.String("room", params.Required(), params.Description("Room code")),
		params.Integer("nights", params.Validate("min=1,max=30"), params.Default(1)),
		params.String("email", params.Validate("required,email")),
	}
}

type lookup struct {
	ID    string `json:"id" validate:"required,uuid4" description:"Study id"`
	Depth int    `json:"depth" validate:"min=0,max=3" default:"1" description:"How deep"`
}

func TestTypedToolSchemaValidationAndDefaults(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	specter.Tool(r, "lookup", func(p lookup, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(p)
	}, specter.Description("Look up a study"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	tools, err := c.ListTools(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "id" ||
		!strings.Contains(string(schema.Properties["id"]), `"format":"uuid"`) ||
		!strings.Contains(string(schema.Properties["depth"]), `"maximum":3`) {
		t.Errorf("schema %s", tools[0].InputSchema)
	}
	res, _, err := c.CallTool(ctx(t), "lookup", map[string]any{"id": "0b6c4a6e-5d6a-4c43-9d2f-1c6c2a6f9d10"})
	if err != nil || res.IsError || string(res.StructuredContent) != `{"id":"0b6c4a6e-5d6a-4c43-9d2f-1c6c2a6f9d10","depth":1}` {
		t.Fatalf("valid call: %+v %s %v", res, res.StructuredContent, err)
	}
	res, _, err = c.CallTool(ctx(t), "lookup", map[string]any{"id": "nope", "depth": "2"})
	if err != nil || !res.IsError {
		t.Fatalf("invalid call: %+v %v", res, err)
	}
	if msg := text(t, res); !strings.Contains(msg, "depth") {
		t.Errorf("error %q does not name depth (wrong type)", msg)
	}
}

func TestRawSchemaIsServedVerbatimAndEnforced(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	resp, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.Body), `"inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef"`) {
		t.Errorf("the raw schema was not served verbatim")
	}
	res, _, err := c.CallTool(ctx(t), "json_schema_2020_12_tool", map[string]any{"name": "x", "contactMethod": "phone"})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "phone") {
		t.Fatalf("if/then violation: %+v %v", res, err)
	}
	res, _, err = c.CallTool(ctx(t), "json_schema_2020_12_tool", map[string]any{"name": "x", "contactMethod": "phone", "phone": "1"})
	if err != nil || res.IsError {
		t.Fatalf("valid call: %+v %v", res, err)
	}
}

func TestInvalidPromptArgumentsAre32602WithDetails(t *testing.T) {
	e := newEnv(t, nil)
	c := e.session(nil, "2025-11-25")
	resp, err := c.Call(ctx(t), "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	var je *jsonrpc.Error
	if err := resp.Decode(&struct{}{}); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("got %v, want -32602", err)
	}
	data := mustJSON(je.Data)
	if !strings.Contains(data, `"path":"arg2"`) || !strings.Contains(data, `"rule":"required"`) {
		t.Errorf("data %s does not detail arg2/required", data)
	}
}
