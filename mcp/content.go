package mcp

// Content is a piece of tool or prompt output: *TextContent, *ImageContent,
// *AudioContent, *ResourceLink or *EmbeddedResource; in sampling also
// *ToolUseContent and *ToolResultContent (see SamplingContent).
type Content interface {
	// ContentType returns the value of the "type" field.
	ContentType() string
}

// TextContent is text.
type TextContent struct {
	Type        string       `json:"type"` // "text"
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ImageContent is a base64-encoded image.
type ImageContent struct {
	Type        string       `json:"type"` // "image"
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// AudioContent is base64-encoded audio.
type AudioContent struct {
	Type        string       `json:"type"` // "audio"
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceLink points at a resource the client may read.
type ResourceLink struct {
	Type        string       `json:"type"` // "resource_link"
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Type        string           `json:"type"` // "resource"
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

func (*TextContent) ContentType() string      { return "text" }
func (*ImageContent) ContentType() string     { return "image" }
func (*AudioContent) ContentType() string     { return "audio" }
func (*ResourceLink) ContentType() string     { return "resource_link" }
func (*EmbeddedResource) ContentType() string { return "resource" }

// Text returns text content.
func Text(s string) *TextContent { return &TextContent{Type: "text", Text: s} }

// Image returns image content from base64 data.
func Image(base64Data, mimeType string) *ImageContent {
	return &ImageContent{Type: "image", Data: base64Data, MIMEType: mimeType}
}

// Audio returns audio content from base64 data.
func Audio(base64Data, mimeType string) *AudioContent {
	return &AudioContent{Type: "audio", Data: base64Data, MIMEType: mimeType}
}

// Link returns a resource link.
func Link(uri, name string) *ResourceLink {
	return &ResourceLink{Type: "resource_link", URI: uri, Name: name}
}

// Embed returns an embedded resource.
func Embed(c ResourceContents) *EmbeddedResource {
	return &EmbeddedResource{Type: "resource", Resource: c}
}
