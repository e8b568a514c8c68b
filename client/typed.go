package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/specter-mcp/specter/mcp"
)

// outputSchema is a tool's output schema, compiled on first use.
type outputSchema struct {
	raw  json.RawMessage
	once sync.Once
	s    *jsonschema.Schema
	err  error
}

// remember keeps a listed tool's output schema for the checks of
// CallToolInto and ValidateOutput.
func (c *Client) remember(t mcp.Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.outputs == nil {
		c.outputs = map[string]*outputSchema{}
	}
	if len(t.OutputSchema) == 0 {
		delete(c.outputs, t.Name)
		return
	}
	if old := c.outputs[t.Name]; old != nil && bytes.Equal(old.raw, t.OutputSchema) {
		return
	}
	c.outputs[t.Name] = &outputSchema{raw: t.OutputSchema}
}

// outputLocation names an output schema for the compiler; nothing is
// ever loaded from it.
const outputLocation = "urn:specter:client:output"

func (o *outputSchema) compiled() (*jsonschema.Schema, error) {
	o.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(o.raw))
		if err != nil {
			o.err = fmt.Errorf("output schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(noLoader{})
		if err := c.AddResource(outputLocation, doc); err != nil {
			o.err = fmt.Errorf("output schema: %w", err)
			return
		}
		o.s, o.err = c.Compile(outputLocation)
	})
	return o.s, o.err
}

// noLoader refuses external $refs: a client never fetches what a server's
// schema points at (SEP-2106).
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not loaded", url)
}

// ErrNoStructuredContent is returned by CallToolInto for a result that
// carries no structuredContent.
var ErrNoStructuredContent = errors.New("mcp client: the result has no structuredContent")

// ValidateOutput checks a tool result's structuredContent against the
// output schema the tool declared in the last tools/list. A tool that was
// not listed, or declares no output schema, passes.
func (c *Client) ValidateOutput(name string, res *mcp.CallToolResult) error {
	c.mu.Lock()
	o := c.outputs[name]
	c.mu.Unlock()
	if o == nil || res.IsError {
		return nil
	}
	if len(res.StructuredContent) == 0 {
		return fmt.Errorf("mcp client: tool %s declares an output schema but sent no structuredContent", name)
	}
	s, err := o.compiled()
	if err != nil {
		return fmt.Errorf("mcp client: tool %s: %w", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.StructuredContent))
	if err != nil {
		return fmt.Errorf("mcp client: tool %s: structuredContent: %w", name, err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("mcp client: tool %s: structuredContent does not match the output schema: %w", name, err)
	}
	return nil
}

// ToolError is a tool's own report of failure: a result with isError set,
// which CallToolInto returns as an error. Text is what the tool said (its
// text content), for a person or a model to read.
type ToolError struct {
	Tool   string
	Text   string
	Result *mcp.CallToolResult
}

func (e *ToolError) Error() string {
	if e.Text == "" {
		return "mcp client: tool " + e.Tool + " failed"
	}
	return "mcp client: tool " + e.Tool + " failed: " + e.Text
}

// toolError makes the ToolError of a failed result: its text contents,
// one per line.
func toolError(name string, res *mcp.CallToolResult) *ToolError {
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			text = append(text, t.Text)
		}
	}
	return &ToolError{Tool: name, Text: strings.Join(text, "\n"), Result: res}
}

// CallToolInto calls a tool and decodes its structuredContent into a T,
// after checking it against the tool's output schema (see ValidateOutput).
// With Options.JSONText, a result without structuredContent whose text is
// JSON gets that JSON as its structuredContent first. A result with
// IsError set is returned with a *ToolError holding what the tool said.
func CallToolInto[T any](ctx context.Context, c *Client, name string, args any, opts ...CallOption) (T, *mcp.CallToolResult, error) {
	var out T
	res, err := c.CallTool(ctx, name, args, opts...)
	if err != nil {
		return out, nil, err
	}
	if res.IsError {
		return out, res, toolError(name, res)
	}
	if len(res.StructuredContent) == 0 && c.opts.JSONText {
		res.StructuredContent = jsonText(res.Content)
	}
	if err := c.ValidateOutput(name, res); err != nil {
		return out, res, err
	}
	if len(res.StructuredContent) == 0 {
		return out, res, ErrNoStructuredContent
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		return out, res, fmt.Errorf("mcp client: tool %s: decoding structuredContent: %w", name, err)
	}
	return out, res, nil
}

// jsonText returns the text of a result's text content when it is JSON,
// else nil.
func jsonText(content []mcp.Content) json.RawMessage {
	var b bytes.Buffer
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	text := bytes.TrimSpace(b.Bytes())
	if len(text) == 0 || !json.Valid(text) {
		return nil
	}
	return text
}
