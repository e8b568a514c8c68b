package handlers

import (
	"encoding/json"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Negotiate picks the protocol version for a session: the client's if the
// server speaks it, otherwise the newest the server speaks, which the
// client may then refuse (lifecycle, version negotiation).
func Negotiate(requested string) string {
	if mcp.IsSessionVersion(requested) {
		return requested
	}
	return mcp.LatestSessionVersion
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
