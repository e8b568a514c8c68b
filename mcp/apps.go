package mcp

import (
	"encoding/json"
	"slices"
)

// ExtensionUI is the identifier of the MCP Apps extension (SEP-1865,
// spec 2026-01-26): tools linked to ui:// HTML resources that a host
// renders in a sandboxed iframe.
const ExtensionUI = "io.modelcontextprotocol/ui"

// MIMETypeApp is the MIME type of an MCP App's HTML, the only one the
// extension defines so far.
const MIMETypeApp = "text/html;profile=mcp-app"

// UIScheme begins the URI of every UI resource.
const UIScheme = "ui://"

// The _meta keys of the extension: MetaUI holds a UIToolMeta on a tool
// and a UIResourceMeta on a resource or its contents; MetaUIResourceURI
// is the flat key that hosts read before _meta.ui.resourceUri existed
// (deprecated by the spec, still read).
const (
	MetaUI            = "ui"
	MetaUIResourceURI = "ui/resourceUri"
)

// UIVisibility says who may use a tool linked to a UI.
type UIVisibility string

// The visibilities: the model (the agent's tool list) and the app (calls
// from the view, to its own server only). A tool without a visibility is
// visible to both.
const (
	VisibilityModel UIVisibility = "model"
	VisibilityApp   UIVisibility = "app"
)

// UIToolMeta is a tool's _meta.ui.
type UIToolMeta struct {
	// ResourceURI names the ui:// resource a host renders for the tool's
	// results.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility is who may use the tool; empty means both.
	Visibility []UIVisibility `json:"visibility,omitempty"`
}

// VisibleTo reports whether v may use the tool.
func (m *UIToolMeta) VisibleTo(v UIVisibility) bool {
	return m == nil || len(m.Visibility) == 0 || slices.Contains(m.Visibility, v)
}

// UIResourceMeta is the _meta.ui of a UI resource, in resources/list and
// on each content item of resources/read (which takes precedence).
type UIResourceMeta struct {
	CSP         *UICSP         `json:"csp,omitempty"`
	Permissions *UIPermissions `json:"permissions,omitempty"`
	// Domain asks for a dedicated sandbox origin; its format is the host's.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks the host for a visible border and background
	// (true) or none (false); nil leaves it to the host.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// UICSP lists the origins a view may reach; hosts build the iframe's
// Content Security Policy from it and allow nothing else.
type UICSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`  // fetch, XHR, WebSocket (connect-src)
	ResourceDomains []string `json:"resourceDomains,omitempty"` // scripts, styles, images, fonts, media
	FrameDomains    []string `json:"frameDomains,omitempty"`    // nested iframes (frame-src)
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`  // base-uri
}

// UIPermissions are the browser features a view asks for; hosts may
// grant them in the iframe's allow attribute.
type UIPermissions struct {
	Camera         bool
	Microphone     bool
	Geolocation    bool
	ClipboardWrite bool
}

// uiPermissionsWire is UIPermissions as the wire writes it: each granted
// feature an empty object.
type uiPermissionsWire struct {
	Camera         *struct{} `json:"camera,omitempty"`
	Microphone     *struct{} `json:"microphone,omitempty"`
	Geolocation    *struct{} `json:"geolocation,omitempty"`
	ClipboardWrite *struct{} `json:"clipboardWrite,omitempty"`
}

// MarshalJSON writes each requested feature as an empty object.
func (p UIPermissions) MarshalJSON() ([]byte, error) {
	on := func(b bool) *struct{} {
		if b {
			return &struct{}{}
		}
		return nil
	}
	return json.Marshal(uiPermissionsWire{on(p.Camera), on(p.Microphone), on(p.Geolocation), on(p.ClipboardWrite)})
}

// UnmarshalJSON reads the features present.
func (p *UIPermissions) UnmarshalJSON(b []byte) error {
	var w uiPermissionsWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = UIPermissions{w.Camera != nil, w.Microphone != nil, w.Geolocation != nil, w.ClipboardWrite != nil}
	return nil
}

// UIClientCapability is what a client declares under
// extensions["io.modelcontextprotocol/ui"]: the UI MIME types it renders.
type UIClientCapability struct {
	MIMETypes []string `json:"mimeTypes"`
}

// UICapability returns the client's MCP Apps settings, or nil when it
// declared none (or declared them unreadably).
func (c *ClientCapabilities) UICapability() *UIClientCapability {
	if c == nil {
		return nil
	}
	raw, ok := c.Extensions[ExtensionUI]
	if !ok {
		return nil
	}
	var u UIClientCapability
	if json.Unmarshal(raw, &u) != nil {
		return nil
	}
	return &u
}

// SupportsUI reports whether the client renders MCP Apps: it declared the
// extension with the MIME type text/html;profile=mcp-app.
func (c *ClientCapabilities) SupportsUI() bool {
	u := c.UICapability()
	return u != nil && slices.Contains(u.MIMETypes, MIMETypeApp)
}

// ToolUI returns a tool's _meta.ui, with the resource URI taken from the
// legacy "ui/resourceUri" key when only that is set, or nil when the tool
// is linked to no UI and sets no visibility.
func ToolUI(meta Meta) *UIToolMeta {
	var m UIToolMeta
	if !metaValue(meta, MetaUI, &m) {
		m = UIToolMeta{}
	}
	if m.ResourceURI == "" {
		if uri, ok := meta[MetaUIResourceURI].(string); ok {
			m.ResourceURI = uri
		}
	}
	if m.ResourceURI == "" && m.Visibility == nil {
		return nil
	}
	return &m
}

// ResourceUI returns the _meta.ui of a UI resource or content item, or
// nil.
func ResourceUI(meta Meta) *UIResourceMeta {
	var m UIResourceMeta
	if !metaValue(meta, MetaUI, &m) {
		return nil
	}
	return &m
}

// metaValue reads meta[key] into dst, whether it holds the Go value a
// server put there or the JSON a client decoded.
func metaValue[T any](meta Meta, key string, dst *T) bool {
	switch v := meta[key].(type) {
	case nil:
		return false
	case T:
		*dst = v
		return true
	case *T:
		if v == nil {
			return false
		}
		*dst = *v
		return true
	default:
		b, err := json.Marshal(v)
		return err == nil && json.Unmarshal(b, dst) == nil
	}
}
