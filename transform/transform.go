// Package transform reshapes an MCP tool for re-export: it renames the
// tool, rewrites its title and description, renames, hides or fixes its
// arguments (the input schema rewritten to match), and post-processes its
// results. It works on the mcp types alone, so that a gateway re-exporting
// another server's tools and a generator of tools from an API description
// share one mechanism.
//
// A Tool says what to change; Apply checks it against the original tool
// once and returns a Transformed, which holds the tool to list and maps
// each call's arguments back to the original's, and its result forward.
package transform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/specter-mcp/specter/mcp"
)

// Tool is a transformation of one tool. Zero fields keep what the
// original has.
type Tool struct {
	// Name renames the tool.
	Name string
	// Title and Description replace the tool's.
	Title       string
	Description string
	// Args change arguments, keyed by their names in the original tool.
	Args map[string]Arg
	// OutputSchema replaces the tool's, for a Result that changes the
	// shape of structured content.
	OutputSchema json.RawMessage
	// Result, if set, post-processes every result of the tool (error
	// results included: IsError says which). Its error fails the call.
	Result func(ctx context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error)
}

// Arg is a change of one argument.
type Arg struct {
	// Name renames the argument as callers see it.
	Name string
	// Description replaces the argument's description.
	Description string
	// Default is sent when the caller gives no value; it is shown as the
	// schema's default, and the argument is no longer required.
	Default any
	// Hide removes the argument from the schema: callers may not send it.
	// A hidden argument the original requires needs a Value.
	Hide bool
	// Value fixes the argument: it is always sent as this value, and
	// hidden from callers (Hide is implied).
	Value any
}

// Transformed is a tool after a transformation, ready to list and call.
// It is safe for concurrent use.
type Transformed struct {
	tool     mcp.Tool
	original string
	toCaller map[string]string // original argument name → caller's
	toOrig   map[string]string // caller's argument name → original
	hidden   map[string]bool   // original names callers may not send
	fixed    map[string]any    // original name → value always sent
	defaults map[string]any    // original name → value sent when absent
	result   func(context.Context, *mcp.CallToolResult) (*mcp.CallToolResult, error)
}

// ErrHidden is the error for a call that sets a hidden or fixed argument,
// or a renamed one under its original name.
var ErrHidden = errors.New("transform: argument not accepted")

// Apply checks tr against the tool t and returns the transformed tool.
// It fails if tr names an argument t's input schema lacks, renames two
// arguments to one name, hides a required argument without a Value, or
// gives a value that is not JSON.
func Apply(t mcp.Tool, tr Tool) (*Transformed, error) {
	x := &Transformed{original: t.Name, toCaller: map[string]string{}, toOrig: map[string]string{},
		hidden: map[string]bool{}, fixed: map[string]any{}, defaults: map[string]any{}, result: tr.Result}
	var schema map[string]json.RawMessage
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("transform: tool %s: input schema: %w", t.Name, err)
		}
	}
	var props map[string]json.RawMessage
	var required []string
	if raw, ok := schema["properties"]; ok {
		if err := json.Unmarshal(raw, &props); err != nil {
			return nil, fmt.Errorf("transform: tool %s: input schema properties: %w", t.Name, err)
		}
	}
	if raw, ok := schema["required"]; ok {
		if err := json.Unmarshal(raw, &required); err != nil {
			return nil, fmt.Errorf("transform: tool %s: input schema required: %w", t.Name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tr.Args)) {
		if _, ok := props[name]; !ok {
			return nil, fmt.Errorf("transform: tool %s has no argument %q", t.Name, name)
		}
	}

	newProps := make(map[string]json.RawMessage, len(props))
	var newRequired []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		a, changed := tr.Args[name]
		prop := props[name]
		isRequired := slices.Contains(required, name)
		if !changed {
			if _, taken := x.toOrig[name]; taken {
				return nil, fmt.Errorf("transform: tool %s: two arguments named %q", t.Name, name)
			}
			x.toCaller[name], x.toOrig[name] = name, name
			newProps[name] = prop
			if isRequired {
				newRequired = append(newRequired, name)
			}
			continue
		}
		if a.Value != nil {
			v, err := jsonValue(a.Value)
			if err != nil {
				return nil, fmt.Errorf("transform: tool %s: value of %q: %w", t.Name, name, err)
			}
			x.fixed[name], x.hidden[name] = v, true
			continue
		}
		if a.Hide {
			if isRequired {
				return nil, fmt.Errorf("transform: tool %s: required argument %q hidden without a value", t.Name, name)
			}
			x.hidden[name] = true
			continue
		}
		shown := name
		if a.Name != "" {
			shown = a.Name
		}
		if _, taken := x.toOrig[shown]; taken {
			return nil, fmt.Errorf("transform: tool %s: two arguments named %q", t.Name, shown)
		}
		x.toCaller[name], x.toOrig[shown] = shown, name
		var p map[string]json.RawMessage
		if err := json.Unmarshal(prop, &p); err != nil || p == nil {
			return nil, fmt.Errorf("transform: tool %s: schema of %q is not an object", t.Name, name)
		}
		if a.Description != "" {
			p["description"], _ = json.Marshal(a.Description)
		}
		if a.Default != nil {
			v, err := jsonValue(a.Default)
			if err != nil {
				return nil, fmt.Errorf("transform: tool %s: default of %q: %w", t.Name, name, err)
			}
			x.defaults[name] = v
			p["default"], _ = json.Marshal(v)
			isRequired = false
		}
		newProps[shown], _ = json.Marshal(p)
		if isRequired {
			newRequired = append(newRequired, shown)
		}
	}
	x.tool = t
	if tr.Name != "" {
		x.tool.Name = tr.Name
	}
	if tr.Title != "" {
		x.tool.Title = tr.Title
	}
	if tr.Description != "" {
		x.tool.Description = tr.Description
	}
	if len(tr.OutputSchema) > 0 {
		x.tool.OutputSchema = tr.OutputSchema
	}
	if len(tr.Args) > 0 {
		if schema == nil {
			schema = map[string]json.RawMessage{}
		}
		schema["properties"], _ = json.Marshal(newProps)
		if len(newRequired) > 0 {
			schema["required"], _ = json.Marshal(newRequired)
		} else {
			delete(schema, "required")
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("transform: tool %s: input schema: %w", t.Name, err)
		}
		x.tool.InputSchema = raw
	}
	return x, nil
}

// jsonValue is v as decoded JSON (map[string]any, []any, string,
// float64, bool), so that fixed values look like a caller's.
func jsonValue(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

// Tool is the transformed tool, to list in place of the original.
func (x *Transformed) Tool() mcp.Tool { return x.tool }

// Original is the original tool's name, to call.
func (x *Transformed) Original() string { return x.original }

// Arguments maps a caller's arguments to the original tool's: renamed
// arguments get their original names, defaults fill what the caller
// left out, and fixed values are set. Arguments the transformation does
// not know are passed as they are, for the original tool to judge. A
// hidden or fixed argument set by the caller fails with ErrHidden.
func (x *Transformed) Arguments(args map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(args)+len(x.fixed)+len(x.defaults))
	for k, v := range args {
		orig, ok := x.toOrig[k]
		switch {
		case ok:
			out[orig] = v
		case x.hidden[k]:
			return nil, fmt.Errorf("%w: %q", ErrHidden, k)
		case x.toCaller[k] != "":
			return nil, fmt.Errorf("%w: %q is named %q", ErrHidden, k, x.toCaller[k])
		default:
			out[k] = v
		}
	}
	for k, v := range x.defaults {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	maps.Copy(out, x.fixed)
	return out, nil
}

// ArgumentsJSON is Arguments over a JSON object (empty or null for
// none).
func (x *Transformed) ArgumentsJSON(raw json.RawMessage) (json.RawMessage, error) {
	var args map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("transform: arguments of %s: %w", x.tool.Name, err)
		}
	}
	out, err := x.Arguments(args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Result post-processes a result of the original tool; without a Result
// function it returns res.
func (x *Transformed) Result(ctx context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if x.result == nil || res == nil {
		return res, nil
	}
	return x.result(ctx, res)
}
