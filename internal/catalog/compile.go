package catalog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Kind is what a declaration declares.
type Kind uint8

// The kinds of declaration.
const (
	Tool Kind = iota
	Prompt
	Resource
)

func (k Kind) String() string {
	switch k {
	case Tool:
		return "tool"
	case Prompt:
		return "prompt"
	}
	return "resource"
}

// Spec is a declaration as its options wrote it.
type Spec struct {
	Kind                Kind
	Name                string // tool or prompt name; resource pattern as written
	Title               string
	Description         string
	Icons               []mcp.Icon
	Meta                mcp.Meta
	Annotations         *mcp.ToolAnnotations
	ResourceName        string
	MIMEType            string
	Size                *int64           // a fixed resource's size in bytes
	ResourceAnnotations *mcp.Annotations // a resource's or template's annotations
	RawInput            json.RawMessage  // an input schema given whole
	OutputSchema        json.RawMessage
	Fields              []params.Field
	Typed               *params.Schema // a typed declaration's schema, made from its struct
	Completed           []string       // the arguments given a completer
	Listed              bool           // a List handler is set
	TaskSupport         string         // a tool's execution.taskSupport: "optional", "required" or ""
}

// Compiled is what Compile builds, once per declaration.
type Compiled struct {
	Schema   *params.Schema
	Output   *params.Schema          // a tool's output schema, compiled to check structuredContent
	Pattern  *uripattern.Pattern     // a resource's
	Headers  []stateless.ParamHeader // a tool's params mirrored into Mcp-Param-* headers
	Tool     *mcp.Tool
	Prompt   *mcp.Prompt
	Resource *mcp.Resource // a fixed URI
	Template *mcp.ResourceTemplate
}

// toolName is the spec's rule for tool names (2025-11-25).
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Compile checks a declaration and builds its params schema and its wire
// form. The error says what is wrong in terms of the declaring API.
func Compile(s *Spec) (*Compiled, error) {
	c := &Compiled{}
	var err error
	switch {
	case s.Typed != nil:
		if len(s.Fields) > 0 || s.RawInput != nil {
			return nil, fmt.Errorf("a typed %s takes its params from its struct; remove the params fields", s.Kind)
		}
		c.Schema = s.Typed
	case s.RawInput != nil:
		if len(s.Fields) > 0 {
			return nil, fmt.Errorf("InputSchema and params fields cannot be combined")
		}
		if c.Schema, err = params.Raw(s.RawInput); err != nil {
			return nil, err
		}
	case len(s.Fields) > 0:
		if c.Schema, err = params.New(s.Fields...); err != nil {
			return nil, err
		}
	default:
		c.Schema = params.Empty()
	}
	switch s.Kind {
	case Tool:
		err = c.tool(s)
	case Prompt:
		err = c.prompt(s)
	default:
		err = c.resource(s)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Compiled) tool(s *Spec) error {
	if !toolName.MatchString(s.Name) {
		return fmt.Errorf("tool names are 1 to 128 characters of A-Z, a-z, 0-9, _, - and .")
	}
	for _, f := range c.Schema.Fields() {
		if f.Header != "" {
			c.Headers = append(c.Headers, stateless.ParamHeader{Param: f.Name, Header: f.Header})
		}
	}
	if s.OutputSchema != nil {
		out, err := params.Raw(s.OutputSchema)
		if err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
		c.Output = out
	}
	c.Tool = &mcp.Tool{
		Name: s.Name, Title: s.Title, Description: s.Description,
		InputSchema: c.Schema.JSON(), OutputSchema: s.OutputSchema,
		Annotations: s.Annotations, Icons: s.Icons, Meta: s.Meta,
	}
	if s.TaskSupport != "" {
		c.Tool.Execution = &mcp.ToolExecution{TaskSupport: s.TaskSupport}
	}
	return nil
}

func (c *Compiled) prompt(s *Spec) error {
	if s.Name == "" {
		return fmt.Errorf("a prompt needs a name")
	}
	if s.RawInput != nil {
		return fmt.Errorf("prompts take params fields, not a raw input schema")
	}
	p := &mcp.Prompt{Name: s.Name, Title: s.Title, Description: s.Description, Icons: s.Icons, Meta: s.Meta}
	for _, f := range c.Schema.Fields() {
		if f.Type != "string" {
			return fmt.Errorf("argument %q: prompt arguments are strings in MCP; declare it with params.String or params.Enum", f.Name)
		}
		p.Arguments = append(p.Arguments, mcp.PromptArgument{Name: f.Name, Title: f.Title, Description: f.Description, Required: f.Required})
	}
	c.Prompt = p
	return nil
}

func (c *Compiled) resource(s *Spec) error {
	pat, err := uripattern.Compile(s.Name)
	if err != nil {
		return err
	}
	c.Pattern = pat
	if s.RawInput != nil || (len(s.Fields) > 0 && !pat.IsTemplate()) {
		return fmt.Errorf("a resource takes no params; its template variables are its params")
	}
	for _, f := range c.Schema.Fields() {
		if !slices.Contains(pat.Vars(), f.Name) {
			return fmt.Errorf("param %q: the template has no such variable", f.Name)
		}
		if f.Type == "array" || f.Type == "object" {
			return fmt.Errorf("param %q: a template variable is a string, integer, number or boolean", f.Name)
		}
	}
	name := s.ResourceName
	if name == "" {
		name = s.Name
	}
	if !pat.IsTemplate() {
		if s.Listed {
			return fmt.Errorf("List applies to resource templates, not to a fixed URI")
		}
		c.Resource = &mcp.Resource{URI: pat.Template(), Name: name, Title: s.Title, Description: s.Description,
			MIMEType: s.MIMEType, Size: s.Size, Annotations: s.ResourceAnnotations, Icons: s.Icons, Meta: s.Meta}
		return nil
	}
	for _, arg := range s.Completed {
		if !slices.Contains(pat.Vars(), arg) {
			return fmt.Errorf("Complete(%q): the template has no such variable", arg)
		}
	}
	if s.Size != nil {
		return fmt.Errorf("Size applies to a fixed URI, not to a resource template")
	}
	c.Template = &mcp.ResourceTemplate{URITemplate: pat.Template(), Name: name, Title: s.Title,
		Description: s.Description, MIMEType: s.MIMEType, Annotations: s.ResourceAnnotations, Icons: s.Icons, Meta: s.Meta}
	return nil
}
