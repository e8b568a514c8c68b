package methods

import (
	"encoding/json"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// paramMembers are the members of params that the router and the methods
// decode, and metaMembers those of _meta. A key given twice, or a case
// variant of one of these, is refused before any decoder reads the params:
// encoding/json would take the last or the case-insensitive match, and a
// gateway that parses differently would see another request.
var (
	paramMembers = []string{"name", "uri", "cursor", "arguments", "_meta", "inputResponses", "requestState",
		"taskId", "ref", "argument", "context", "level", "protocolVersion", "capabilities", "clientInfo",
		"requestId", "reason", "notifications", "task"}
	metaMembers = []string{"progressToken", mcp.MetaProtocolVersion, mcp.MetaClientInfo,
		mcp.MetaClientCapabilities, mcp.MetaLogLevel}
)

// CheckParams checks a request's params and their _meta (see paramMembers)
// before any decoder reads them. The error has CodeInvalidParams.
func CheckParams(params json.RawMessage) *jsonrpc.Error {
	meta, e := jsonrpc.CheckMembersFor(params, "_meta", paramMembers...)
	if e != nil || meta == nil {
		return e
	}
	return jsonrpc.CheckMembers(meta, metaMembers...)
}
