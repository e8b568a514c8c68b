package methods

import (
	"encoding/json"
	"slices"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Negotiate picks the protocol version for a session among offered, the
// session-era versions the server offers, newest first: the client's if
// offered, otherwise the newest offered, which the client may then refuse
// (lifecycle, version negotiation). It returns "" when none is offered.
func Negotiate(requested string, offered []string) string {
	if slices.Contains(offered, requested) {
		return requested
	}
	if len(offered) == 0 {
		return ""
	}
	return offered[0]
}

// DecodeInitialize reads and checks initialize params.
func DecodeInitialize(params json.RawMessage) (*mcp.InitializeParams, error) {
	var p mcp.InitializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `Invalid params: "protocolVersion" is required`)
	}
	return &p, nil
}
