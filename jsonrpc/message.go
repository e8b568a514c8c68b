package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the only JSON-RPC version MCP speaks.
const Version = "2.0"

// Kind says what a message is.
type Kind uint8

// The kinds of JSON-RPC message.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
	KindErrorResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	case KindErrorResponse:
		return "error response"
	}
	return "invalid"
}

// ID is a request id exactly as the peer wrote it: a JSON string or number.
// It is kept raw so that it is echoed byte for byte.
type ID json.RawMessage

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id) == 0 }

// Key returns a map key for the id; "1" and 1 are different ids.
func (id ID) Key() string { return string(id) }

// String returns the id for logs.
func (id ID) String() string { return string(id) }

// MarshalJSON writes the id as it was received, or null when absent.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id) == 0 {
		return []byte("null"), nil
	}
	return id, nil
}

// UnmarshalJSON keeps the raw bytes.
func (id *ID) UnmarshalJSON(b []byte) error {
	*id = append((*id)[:0], b...)
	return nil
}

// StringID returns an id that is the JSON string s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID(b)
}

// IntID returns an id that is the JSON number n.
func IntID(n int64) ID { return ID(fmt.Appendf(nil, "%d", n)) }

// Message is any JSON-RPC message. Which fields are set depends on its Kind.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Kind classifies the message. Parse only returns messages of a valid kind.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && m.ID.IsZero():
		return KindNotification
	case m.Method != "":
		return KindRequest
	case m.Error != nil:
		return KindErrorResponse
	case m.Result != nil:
		return KindResponse
	}
	return KindInvalid
}

// validate checks the envelope rules JSON-RPC and MCP put on a message.
func (m *Message) validate() *Error {
	if m.JSONRPC != Version {
		return Errorf(CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	if !m.ID.IsZero() {
		switch m.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return Errorf(CodeInvalidRequest, `"id" must be a string or a number`)
		}
	}
	if m.Method != "" {
		if m.Result != nil || m.Error != nil {
			return Errorf(CodeInvalidRequest, "a request carries no result or error")
		}
		if len(m.Params) > 0 && m.Params[0] != '{' && !bytes.Equal(m.Params, []byte("null")) {
			return Errorf(CodeInvalidRequest, `"params" must be an object`)
		}
		return nil
	}
	if m.Result != nil && m.Error != nil {
		return Errorf(CodeInvalidRequest, "a response carries a result or an error, not both")
	}
	if m.Result == nil && m.Error == nil {
		return Errorf(CodeInvalidRequest, `a message needs "method", "result" or "error"`)
	}
	if m.ID.IsZero() && m.Error == nil {
		return Errorf(CodeInvalidRequest, `a response needs an "id"`)
	}
	return nil
}
