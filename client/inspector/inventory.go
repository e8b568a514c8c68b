package inspector

import (
	"context"
	"fmt"
	"iter"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// Inventory is everything a server offers, each list whole.
type Inventory struct {
	ServerInfo        mcp.Implementation     `json:"serverInfo"`
	ProtocolVersion   string                 `json:"protocolVersion"`
	Era               string                 `json:"era"` // "stateless" or "session"
	Capabilities      mcp.ServerCapabilities `json:"capabilities"`
	Instructions      string                 `json:"instructions,omitempty"`
	Tools             []mcp.Tool             `json:"tools"`
	Prompts           []mcp.Prompt           `json:"prompts"`
	Resources         []mcp.Resource         `json:"resources"`
	ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
}

// Collect lists everything c's server offers: every page of each list
// it has the capability for.
func Collect(ctx context.Context, c *client.Client) (*Inventory, error) {
	inv := &Inventory{
		ServerInfo:        c.ServerInfo(),
		ProtocolVersion:   c.Version(),
		Era:               Era(c),
		Capabilities:      c.ServerCapabilities(),
		Instructions:      c.Instructions(),
		Tools:             []mcp.Tool{},
		Prompts:           []mcp.Prompt{},
		Resources:         []mcp.Resource{},
		ResourceTemplates: []mcp.ResourceTemplate{},
	}
	var err error
	if inv.Capabilities.Tools != nil {
		if inv.Tools, err = all(c.Tools(ctx), inv.Tools, "tools"); err != nil {
			return nil, err
		}
	}
	if inv.Capabilities.Prompts != nil {
		if inv.Prompts, err = all(c.Prompts(ctx), inv.Prompts, "prompts"); err != nil {
			return nil, err
		}
	}
	if inv.Capabilities.Resources != nil {
		if inv.Resources, err = all(c.Resources(ctx), inv.Resources, "resources"); err != nil {
			return nil, err
		}
		if inv.ResourceTemplates, err = all(c.ResourceTemplates(ctx), inv.ResourceTemplates, "resource templates"); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

// all appends every item of seq to list.
func all[T any](seq iter.Seq2[T, error], list []T, what string) ([]T, error) {
	for v, err := range seq {
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", what, err)
		}
		list = append(list, v)
	}
	return list, nil
}

// Era names the protocol era c and its server agreed on: "stateless"
// (2026-07-28) or "session".
func Era(c *client.Client) string {
	if c.Stateless() {
		return "stateless"
	}
	return "session"
}
