package mcp

import "encoding/json"

// ElicitParams asks the user for input: in form mode (RequestedSchema) or,
// from 2025-11-25, in URL mode (URL and ElicitationID).
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"` // "form" (default) or "url"
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	Action  string         `json:"action"` // "accept", "decline" or "cancel"
	Content map[string]any `json:"content,omitempty"`
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Role    Role            `json:"role"`
	Content SamplingContent `json:"content"`
	Meta    Meta            `json:"_meta,omitempty"`
}

// ModelHint names a model family a server would like.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ModelPreferences guide the client's choice of model.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// CreateMessageParams asks the client's LLM for a completion.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	Metadata         map[string]any    `json:"metadata,omitempty"`
	// Tools the model may call, and how (2025-11-25, SEP-1577). A client
	// that did not declare sampling.tools must refuse a request with them.
	// The model's calls come back as ToolUseContent with stopReason
	// "toolUse"; the results go back as ToolResultContent in a user
	// message of the next request.
	Tools      []Tool      `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
}

// ToolChoice controls the model's use of tools in sampling: mode is
// ToolChoiceAuto (the default), ToolChoiceRequired or ToolChoiceNone.
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// The modes of ToolChoice, and the stop reason of a result that asks for
// tool calls.
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceRequired = "required"
	ToolChoiceNone     = "none"
	StopReasonToolUse  = "toolUse"
)

// CreateMessageResult is the client LLM's answer.
type CreateMessageResult struct {
	Role       Role            `json:"role"`
	Content    SamplingContent `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       Meta            `json:"_meta,omitempty"`
}

// Root is a directory or file the client exposes.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
}
