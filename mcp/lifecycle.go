package mcp

// InitializeParams opens a session.
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            Meta               `json:"_meta,omitempty"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            Meta               `json:"_meta,omitempty"`
}

// CancelledParams is sent by a client that no longer wants a result.
type CancelledParams struct {
	RequestID any    `json:"requestId"`
	Reason    string `json:"reason,omitempty"`
}

// ProgressParams reports progress on a request.
type ProgressParams struct {
	ProgressToken ProgressToken `json:"progressToken"`
	Progress      float64       `json:"progress"`
	Total         *float64      `json:"total,omitempty"`
	Message       string        `json:"message,omitempty"`
}

// PaginatedParams is the cursor of a list request.
type PaginatedParams struct {
	Cursor string `json:"cursor,omitempty"`
}
