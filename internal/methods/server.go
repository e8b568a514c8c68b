package methods

import (
	"encoding/json"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/mcp"
)

// Server is the router as one request sees it. Every list it returns is
// already filtered to what the caller may see, in registration order.
type Server interface {
	// PageSize is how many items a list page holds.
	PageSize() int
	// SetLogLevel records the level for logging/setLevel.
	SetLogLevel(level mcp.LoggingLevel)
	// EnvelopeName is the name or URI that ReadEnvelope read from the
	// request's params, which a method reuses rather than copy it again.
	EnvelopeName() string

	Tools() []*mcp.Tool
	CallTool(name string, args json.RawMessage) Outcome

	Prompts() []*mcp.Prompt
	GetPrompt(name string, args map[string]string) Outcome

	// Resources are the static resources; ResourceSources produce more,
	// each with its own cursor, listed after the static ones.
	Resources() []*mcp.Resource
	ResourceSources() []ResourceSource
	Templates() []*mcp.ResourceTemplate
	ReadResource(uri string) Outcome
	// Subscribe (or unsubscribe) the caller to updates of uri.
	Subscribe(uri string, on bool) error

	Complete(p *mcp.CompleteParams) (*mcp.Completion, error)

	// Skills are the entries of skills/list (skills extension). SkillAt
	// returns the skill whose namespace (skill://<name>/) holds uri, or nil
	// when there is none the caller may see: a hidden skill is unknown.
	// Both fail with -32601 on a server that declares no skills.
	Skills() ([]*mcp.Skill, error)
	SkillAt(uri string) (*skills.Skill, error)

	// Task answers tasks/get, tasks/result and tasks/cancel for a task
	// of the caller's session; Tasks lists them (revision 2025-11-25).
	Task(method, id string) Outcome
	Tasks() ([]*mcp.SessionTask, error)

	// Discover describes the server for server/discover (2026-07-28).
	Discover() *mcp.DiscoverResult
}

// ResourceSource lists dynamic resources one page at a time. cursor is ""
// for the first page; next is "" after the last. paged reports that the
// source pages by itself (a page with a next cursor, or one asked for by
// cursor): resources/list sends its page whole and ends a page with it. A
// source that is not paged lists everything at once, and resources/list
// pages that by the page size.
type ResourceSource func(cursor string) (page []mcp.Resource, next string, paged bool, err error)

// Outcome is what a method produced: a result to encode, an error, or
// Pending when the answer will be sent later on the request's stream.
// (The root package's Result is what a user handler returns; an Outcome is
// that result once shaped for the wire.)
type Outcome struct {
	Result  any
	Err     error
	Pending bool
}

// Capabilities are what a server these handlers serve offers: logging,
// completion, and tools, prompts and resources with change notifications
// and resource subscriptions.
func Capabilities() mcp.ServerCapabilities {
	return mcp.ServerCapabilities{
		Logging: &struct{}{}, Completions: &struct{}{},
		Tools:     &mcp.ListChangedCapability{ListChanged: true},
		Prompts:   &mcp.ListChangedCapability{ListChanged: true},
		Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
	}
}

// Answer returns an Outcome carrying the result v.
func Answer(v any) Outcome { return Outcome{Result: v} }

// Failed returns an Outcome carrying err, answered as a JSON-RPC error.
func Failed(err error) Outcome { return Outcome{Err: err} }
