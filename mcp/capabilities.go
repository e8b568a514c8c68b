package mcp

import "encoding/json"

// ServerCapabilities is what a server declares it can do.
type ServerCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Logging      *struct{}                  `json:"logging,omitempty"`
	Completions  *struct{}                  `json:"completions,omitempty"`
	Prompts      *ListChangedCapability     `json:"prompts,omitempty"`
	Resources    *ResourcesCapability       `json:"resources,omitempty"`
	Tools        *ListChangedCapability     `json:"tools,omitempty"`
	Tasks        json.RawMessage            `json:"tasks,omitempty"` // 2025-11-25
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ListChangedCapability says whether list_changed notifications are sent.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is the resources entry of ServerCapabilities.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities is what a client declares it can do.
type ClientCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Tasks        json.RawMessage            `json:"tasks,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability is the roots entry of ClientCapabilities.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability is the sampling entry of ClientCapabilities.
type SamplingCapability struct {
	Context *struct{} `json:"context,omitempty"`
	Tools   *struct{} `json:"tools,omitempty"`
}

// ElicitationCapability is the elicitation entry of ClientCapabilities. An
// empty object means form mode only, as before modes existed.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// SupportsForm reports whether the client takes form-mode elicitations.
func (c *ElicitationCapability) SupportsForm() bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// SupportsURL reports whether the client takes URL-mode elicitations.
func (c *ElicitationCapability) SupportsURL() bool { return c != nil && c.URL != nil }
