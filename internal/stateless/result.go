package stateless

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// cacheable lists the methods whose results carry caching hints.
var cacheable = map[string]bool{
	mcp.MethodDiscover: true, mcp.MethodToolsList: true, mcp.MethodPromptsList: true,
	mcp.MethodResourcesList: true, mcp.MethodResourceTemplatesList: true, mcp.MethodResourcesRead: true,
	mcp.MethodSkillsList: true, mcp.MethodSkillsGet: true,
}

// Decorate adds what the 2026-07-28 revision puts on every result of
// method: the result type (complete unless set) and the server's
// identity, in a copy of the result's _meta, since a handler may share
// its map. It returns the result's base when the result needs caching
// hints (see Cache), and nil otherwise, as for a value that is no result.
func Decorate(result any, server mcp.Implementation, method string) *mcp.ResultBase {
	b, ok := result.(interface{ Base() *mcp.ResultBase })
	if !ok {
		return nil
	}
	base := b.Base()
	if base.ResultType == "" {
		base.ResultType = mcp.ResultComplete
	}
	meta := make(mcp.Meta, len(base.Meta)+1)
	for k, v := range base.Meta {
		meta[k] = v
	}
	meta[mcp.MetaServerInfo] = server
	base.Meta = meta
	if base.ResultType != mcp.ResultComplete || !cacheable[method] {
		return nil
	}
	return base
}

// Cache sets a result's caching hints: how long it may be cached, and by
// whom. A private answer (one that depends on who asked) is never
// public, whatever scope says.
func Cache(base *mcp.ResultBase, ttl time.Duration, scope string, private bool) {
	ms := ttl.Milliseconds()
	base.TTLMs = &ms
	base.CacheScope = scope
	if private {
		base.CacheScope = mcp.CachePrivate
	}
}

// MissingCapability is the -32021 error of a request that needs the
// client capability at path, which the client did not declare; detail
// says what needed it.
func MissingCapability(path, detail string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMissingCapability, "Missing required client capability: %s", detail).
		WithData(map[string]any{"requiredCapabilities": Capability(path)})
}

// Capability is a dotted capability path as a ClientCapabilities object,
// as the data of a -32021 error names it: "elicitation.url" is
// {"elicitation":{"url":{}}}.
func Capability(path string) map[string]any {
	out := map[string]any{}
	cur := out
	for _, p := range strings.Split(path, ".") {
		next := map[string]any{}
		cur[p] = next
		cur = next
	}
	return out
}

// Error is e as the 2026-07-28 wire reports it: an unknown resource is
// invalid params there, with the same message and data.uri.
func Error(e *jsonrpc.Error) *jsonrpc.Error {
	if e.Code != jsonrpc.CodeResourceNotFound {
		return e
	}
	c := *e
	c.Code = jsonrpc.CodeInvalidParams
	return &c
}

// Extensions returns the extensions server/discover declares, nil for
// none. Declaring one commits the server to its methods: a server with no
// task tool or no skill has nothing to serve through them.
func Extensions(tasks, skills bool) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if tasks {
		m[mcp.ExtensionTasks] = json.RawMessage(`{}`)
	}
	if skills {
		m[mcp.ExtensionSkills] = json.RawMessage(`{"directoryRead":true}`)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
