package mcp

import "encoding/json"

// Meta is the _meta object that most protocol objects may carry.
type Meta map[string]any

// Icon is an image a client may show for a server, tool, prompt or resource.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Implementation names a client or server.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Role is who a message or annotation is for.
type Role string

// The roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell clients how to use a piece of content.
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// ProgressToken is the token a client puts in _meta.progressToken: a string
// or a number, echoed exactly as received.
type ProgressToken = json.RawMessage

// EmptyResult is the result of ping, logging/setLevel and (un)subscribe.
type EmptyResult struct{}
