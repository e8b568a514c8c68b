package mcp

// CompleteParams is the params of completion/complete.
type CompleteParams struct {
	Ref      CompleteRef      `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	Context  *CompleteContext `json:"context,omitempty"`
}

// CompleteRef names what is being completed: a prompt ("ref/prompt", Name)
// or a resource template ("ref/resource", URI).
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being typed.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries arguments already filled in.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// Completion is a list of suggestions; at most 100 values.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompleteResult answers completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	ResultBase
}

// The kinds of CompleteRef.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)
