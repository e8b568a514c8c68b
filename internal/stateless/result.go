package stateless

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// identity. A result with a _meta of its own gets the identity in a copy
// of it, since a handler may share its map; for one without, which is
// nearly every result, Decorate reports appendInfo, and the encoded
// result gets the identity from AppendInfo, without a map. It returns the
// result's base when the result needs caching hints (see Cache), and nil
// otherwise, as for a value that is no result.
func Decorate(result any, server mcp.Implementation, method string) (cache *mcp.ResultBase, appendInfo bool) {
	b, ok := result.(interface{ Base() *mcp.ResultBase })
	if !ok {
		return nil, false
	}
	base := b.Base()
	if base.ResultType == "" {
		base.ResultType = mcp.ResultComplete
	}
	if len(base.Meta) == 0 {
		appendInfo = true
	} else {
		meta := make(mcp.Meta, len(base.Meta)+1)
		for k, v := range base.Meta {
			meta[k] = v
		}
		meta[mcp.MetaServerInfo] = server
		base.Meta = meta
	}
	if base.ResultType != mcp.ResultComplete || !cacheable[method] {
		return nil, appendInfo
	}
	return base, appendInfo
}

// InfoMeta returns the _meta member that carries the server's identity,
// encoded once, for AppendInfo.
func InfoMeta(server mcp.Implementation) []byte {
	info, err := json.Marshal(server)
	if err != nil {
		panic(fmt.Sprintf("stateless: encode the server's identity: %v", err)) // strings and icons always encode
	}
	return append(append([]byte(`"_meta":{"`+mcp.MetaServerInfo+`":`), info...), '}')
}

// AppendInfo gives an encoded result object without a _meta the _meta
// info (from InfoMeta), in place: it appends to result, whose spare
// capacity the caller owns.
func AppendInfo(result, info []byte) []byte {
	empty := len(bytes.TrimSpace(result[1:len(result)-1])) == 0
	result = result[:len(result)-1]
	if !empty {
		result = append(result, ',')
	}
	result = append(result, info...)
	return append(result, '}')
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
