// Command client is the client program of the official MCP conformance
// suite, built on Specter's public client API (package client):
//
//	npx conformance client --command "go run ./integration/conformance/client" --scenario tools_call
//
// The suite appends the server URL as the last argument and names the
// scenario in MCP_CONFORMANCE_SCENARIO, the protocol revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION and scenario data (JSON) in
// MCP_CONFORMANCE_CONTEXT. Each scenario drives the client the way the
// suite's server expects; the exit status is 1 when the client failed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client <server URL>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// scenario is what one run needs.
type scenario struct {
	name    string
	version string
	context json.RawMessage
	log     zerolog.Logger
}

func run(ctx context.Context, url string) error {
	s := &scenario{
		name:    os.Getenv("MCP_CONFORMANCE_SCENARIO"),
		version: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
		context: json.RawMessage(os.Getenv("MCP_CONFORMANCE_CONTEXT")),
		log:     zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, NoColor: true}).With().Timestamp().Logger(),
	}
	s.log.Info().Str("scenario", s.name).Str("version", s.version).Str("url", url).Msg("start")
	if strings.HasPrefix(s.name, "auth/") {
		return s.auth(ctx, url)
	}
	c, err := client.Connect(ctx, &client.HTTPTransport{URL: url}, s.options())
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return s.drive(ctx, c)
}

// options are the client's options for every scenario: a pinned
// revision, and handlers that accept what the server asks.
func (s *scenario) options() *client.Options {
	return &client.Options{
		Info:    mcp.Implementation{Name: "specter-conformance-client", Version: "1.0.0"},
		Version: s.version,
		Logger:  &s.log,
		Elicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			// Accept and leave every field to its default (SEP-1034),
			// except the confirmation the MRTR scenarios ask for.
			content := map[string]any{}
			if strings.Contains(string(p.RequestedSchema), `"confirmed"`) {
				content["confirmed"] = true
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
		Sampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text("A reply from the conformance client.")}, Model: "conformance-model", StopReason: "endTurn"}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///tmp/conformance", Name: "conformance"}}, nil
		},
	}
}

// drive runs the scenario's requests.
func (s *scenario) drive(ctx context.Context, c *client.Client) error {
	if strings.HasPrefix(s.name, "sep-2640-") {
		return s.skills(ctx, c)
	}
	tools, err := c.ListTools(ctx, "")
	if err != nil {
		return err
	}
	byName := map[string]mcp.Tool{}
	for _, t := range tools.Tools {
		byName[t.Name] = t
	}
	switch s.name {
	case "initialize", "json-schema-ref-no-deref", "request-metadata":
		if s.name == "request-metadata" {
			_, err = c.CallTool(ctx, "any", nil)
		}
		return err
	case "tools_call":
		_, err := c.CallTool(ctx, "add_numbers", map[string]any{"a": 5, "b": 3})
		return err
	case "json-schema-2020-12-preservation":
		focal, ok := byName["json_schema_2020_12_tool"]
		if !ok {
			return errors.New("json_schema_2020_12_tool is not listed")
		}
		_, err := c.CallTool(ctx, "json_schema_echo", map[string]json.RawMessage{"schema": focal.InputSchema})
		return err
	case "http-standard-headers":
		return s.everything(ctx, c, tools.Tools)
	case "http-custom-headers":
		var data struct {
			ToolCalls []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"toolCalls"`
		}
		if err := json.Unmarshal(s.context, &data); err != nil {
			return fmt.Errorf("scenario context: %w", err)
		}
		for _, call := range data.ToolCalls {
			if _, err := c.CallTool(ctx, call.Name, call.Arguments); err != nil {
				return err
			}
		}
		return nil
	case "sep-2322-client-request-state":
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
			if _, err := c.CallTool(ctx, name, nil); err != nil {
				return err
			}
		}
		return nil
	}
	// Otherwise call every tool the server offers, with placeholder
	// arguments for what it requires.
	for _, t := range tools.Tools {
		if _, err := c.CallTool(ctx, t.Name, placeholders(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}

// skills lists the server's skills and, except in the scenario that
// checks that nothing is fetched ahead of need, loads each one. A skill
// that fails verification is not loaded, and none of its files is read.
func (s *scenario) skills(ctx context.Context, c *client.Client) error {
	list, err := c.ListSkills(ctx, "")
	if err != nil {
		return err
	}
	if s.name == "sep-2640-client-no-prefetch" {
		return nil
	}
	for _, skill := range list.Skills {
		if _, err := c.LoadSkill(ctx, skill); err != nil {
			if errors.Is(err, client.ErrSkillVerification) {
				s.log.Warn().Err(err).Str("skill", skill.URI).Msg("skill not loaded")
				continue
			}
			return err
		}
	}
	return nil
}

// everything lists and uses every tool, resource and prompt.
func (s *scenario) everything(ctx context.Context, c *client.Client, tools []mcp.Tool) error {
	for _, t := range tools {
		if _, err := c.CallTool(ctx, t.Name, placeholders(t.InputSchema)); err != nil {
			return err
		}
	}
	res, err := c.ListResources(ctx, "")
	if err != nil {
		return err
	}
	for _, r := range res.Resources {
		if _, err := c.ReadResource(ctx, r.URI); err != nil {
			return err
		}
	}
	prompts, err := c.ListPrompts(ctx, "")
	if err != nil {
		return err
	}
	for _, p := range prompts.Prompts {
		if _, err := c.GetPrompt(ctx, p.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// placeholders returns arguments for the required properties of a schema.
func placeholders(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "object":
			args[name] = map[string]any{}
		case "array":
			args[name] = []any{}
		default:
			args[name] = "value"
		}
	}
	return args
}
