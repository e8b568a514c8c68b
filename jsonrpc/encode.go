package jsonrpc

import (
	"encoding/json"
	"slices"
)

// AppendResult appends the response {"jsonrpc":"2.0","id":id,"result":result}
// to dst. result must be valid JSON.
func AppendResult(dst []byte, id ID, result json.RawMessage) []byte {
	dst = slices.Grow(dst, len(`{"jsonrpc":"2.0","id":null,"result":}`)+len(id)+len(result))
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// AppendError appends an error response to dst. When the request id is
// unknown (a body that did not parse) the id is left out: MCP's transport
// sends "a JSON-RPC error response that has no id", and its schema admits
// no null id.
func AppendError(dst []byte, id ID, e *Error) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if !id.IsZero() {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"error":`...)
	b, err := json.Marshal(e)
	if err != nil {
		// Data that cannot be encoded is dropped rather than losing the error.
		b, _ = json.Marshal(&Error{Code: e.Code, Message: e.Message})
	}
	dst = append(dst, b...)
	return append(dst, '}')
}

// AppendRequest appends a request (or, with a zero id, a notification).
func AppendRequest(dst []byte, id ID, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if !id.IsZero() {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	m, _ := json.Marshal(method)
	dst = append(dst, m...)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

func appendID(dst []byte, id ID) []byte {
	if id.IsZero() {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}
