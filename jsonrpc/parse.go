package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
)

// MaxDepth is how deeply a message may nest objects and arrays. Real MCP
// messages stay far below it; the limit keeps a hostile body from costing
// more than its size.
const MaxDepth = 64

// Parse decodes a request body: one message, or a batch (a JSON array).
// Errors come back as *Error with CodeParseError for bodies that are not
// JSON (or nest deeper than MaxDepth) and CodeInvalidRequest for JSON that
// is not JSON-RPC. Envelope members are matched exactly: a member given
// twice, or a key that differs from one only in case ("Method"), makes the
// message an Invalid Request, since another parser would read it
// differently. In a batch, an invalid element fails the whole body.
func Parse(body []byte) (msgs []*Message, batch bool, err error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, false, Errorf(CodeParseError, "parse error: empty body")
	}
	if e := checkDepth(body); e != nil {
		return nil, false, e
	}
	if body[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, true, Errorf(CodeParseError, "parse error: %s", describe(err))
		}
		if len(raw) == 0 {
			return nil, true, Errorf(CodeInvalidRequest, "empty batch")
		}
		msgs = make([]*Message, 0, len(raw))
		for _, r := range raw {
			m, e := decodeOne(r)
			if e != nil {
				return nil, true, e
			}
			msgs = append(msgs, m)
		}
		return msgs, true, nil
	}
	m, e := decodeOne(body)
	if e != nil {
		return nil, false, e
	}
	return []*Message{m}, false, nil
}

func decodeOne(b []byte) (*Message, *Error) {
	if len(b) == 0 || b[0] != '{' {
		if !json.Valid(b) {
			return nil, Errorf(CodeParseError, "parse error: invalid JSON")
		}
		return nil, Errorf(CodeInvalidRequest, "a JSON-RPC message must be an object")
	}
	m := new(Message)
	if err := json.Unmarshal(b, m); err != nil {
		if _, ok := err.(*json.SyntaxError); ok || !json.Valid(b) {
			return nil, Errorf(CodeParseError, "parse error: %s", describe(err))
		}
		return nil, Errorf(CodeInvalidRequest, "invalid request: %s", describe(err))
	}
	if e := checkEnvelope(b); e != nil {
		return nil, e
	}
	if e := m.validate(); e != nil {
		return nil, e
	}
	return m, nil
}

// DescribeParams says, in words a client can act on and without Go type
// names, why params did not decode: which member has the wrong type.
func DescribeParams(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return `"` + te.Field + `" must not be ` + te.Value
	}
	return "malformed params object"
}

// describe turns encoding/json errors into text without Go type names.
func describe(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return "invalid JSON at byte " + itoa(e.Offset)
	case *json.UnmarshalTypeError:
		if e.Field != "" {
			return `"` + e.Field + `" has the wrong type (` + e.Value + `)`
		}
		return "wrong type (" + e.Value + ")"
	}
	return "invalid JSON"
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// checkDepth rejects bodies nested deeper than MaxDepth with one linear scan,
// before any decoder allocates for them.
func checkDepth(b []byte) *Error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return Errorf(CodeParseError, "parse error: nesting deeper than %d levels", MaxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
