package mcp

// Resource is a concrete resource a server offers.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 template.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceContents is the text or the base64 blob of a resource; exactly
// one of Text and Blob is meant to be set.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitempty"`
}

// TextResource returns text contents.
func TextResource(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MIMEType: mimeType, Text: &text}
}

// BlobResource returns binary contents, already base64-encoded.
func BlobResource(uri, mimeType, base64Blob string) ResourceContents {
	return ResourceContents{URI: uri, MIMEType: mimeType, Blob: &base64Blob}
}

// ListResourcesResult answers resources/list.
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	ResultBase
}

// ListResourceTemplatesResult answers resources/templates/list.
type ListResourceTemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	ResultBase
}

// ReadResourceParams is the params of resources/read, subscribe and unsubscribe.
type ReadResourceParams struct {
	URI string `json:"uri"`
}

// ReadResourceResult answers resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	ResultBase
}

// ResourceUpdatedParams tells a subscriber that a resource changed.
type ResourceUpdatedParams struct {
	URI string `json:"uri"`
}
