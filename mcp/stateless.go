package mcp

import "encoding/json"

// Keys of the _meta objects of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Result types of the 2026-07-28 revision.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// Cache scopes: may a shared intermediary cache the result?
const (
	CachePublic  = "public"
	CachePrivate = "private"
)

// ResultBase is embedded in every result type. Its fields stay empty on
// the session era's wire; the 2026-07-28 revision requires resultType on
// every result and ttlMs and cacheScope on lists, reads and discovery.
type ResultBase struct {
	ResultType string `json:"resultType,omitempty"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

// Base returns the embedded ResultBase, so code can set it on any result.
func (b *ResultBase) Base() *ResultBase { return b }

// RequestMeta is the _meta every 2026-07-28 request carries.
type RequestMeta struct {
	ProtocolVersion    string              `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         *Implementation     `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	ClientCapabilities *ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           LoggingLevel        `json:"io.modelcontextprotocol/logLevel,omitempty"`
	ProgressToken      json.RawMessage     `json:"progressToken,omitempty"`
}

// DiscoverResult answers server/discover.
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	ResultBase
}

// InputRequest is a server-to-client request embedded in an
// InputRequiredResult: elicitation/create, sampling/createMessage or
// roots/list.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// InputRequiredResult asks the client to retry the request with answers
// to InputRequests (multi round-trip requests).
type InputRequiredResult struct {
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
	ResultBase
}

// SubscriptionFilter says which change notifications a subscriptions/listen
// stream carries.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// SubscriptionsListenParams is the params of subscriptions/listen.
type SubscriptionsListenParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
}
