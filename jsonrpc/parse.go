package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"sync/atomic"
	"unicode/utf8"

	"github.com/specter-mcp/specter/internal/jsonscan"
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
	tooDeep, ambiguous := scan(body)
	if tooDeep != nil {
		return nil, false, tooDeep
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
			m := new(Message)
			if e := decodeOne(r, m); e != nil {
				return nil, true, e
			}
			msgs = append(msgs, m)
		}
		if e := check(msgs, ambiguous); e != nil {
			return nil, true, e
		}
		return msgs, true, nil
	}
	// One message and the slice that holds it, in one allocation.
	one := new(struct {
		m    Message
		msgs [1]*Message
	})
	if e := decodeOne(body, &one.m); e != nil {
		return nil, false, e
	}
	one.msgs[0] = &one.m
	msgs = one.msgs[:]
	if e := check(msgs, ambiguous); e != nil {
		return nil, false, e
	}
	return msgs, false, nil
}

// decodeOne decodes one message into m.
func decodeOne(b []byte, m *Message) *Error {
	if len(b) == 0 || b[0] != '{' {
		if !json.Valid(b) {
			return Errorf(CodeParseError, "parse error: invalid JSON")
		}
		return Errorf(CodeInvalidRequest, "a JSON-RPC message must be an object")
	}
	if decodePlain(b, m) {
		return nil
	}
	*m = Message{}
	if err := json.Unmarshal(b, m); err != nil {
		if _, ok := err.(*json.SyntaxError); ok || !json.Valid(b) {
			return Errorf(CodeParseError, "parse error: %s", describe(err))
		}
		return Errorf(CodeInvalidRequest, "Invalid Request: %s", describe(err))
	}
	return nil
}

// decodePlain decodes a message the way encoding/json decodes it into a
// Message, without reflection, when the message is plain: valid JSON whose
// "jsonrpc" and "method" are strings without escapes and which has no
// "error" (client error responses are rare). Anything else is left to
// encoding/json (ok false), whose errors say what is wrong. What the
// message keeps is copied, so that it never aliases the body.
func decodePlain(b []byte, m *Message) (ok bool) {
	if !jsonscan.Valid(b) {
		return false
	}
	o, isObject := jsonscan.Members(b)
	if !isObject {
		return false
	}
	var version, method []byte
	var id, params, result []byte
	for {
		key, value, more := o.Next()
		if !more {
			break
		}
		switch string(key) {
		case "jsonrpc":
			if version = plainString(value); version == nil {
				return false
			}
		case "method":
			if method = plainString(value); method == nil {
				return false
			}
		case "id":
			id = value
		case "params":
			params = value
		case "result":
			result = value
		default:
			if _, folds := foldsTo(key, envelope[:]); folds || string(key) == "error" {
				return false
			}
		}
	}
	*m = Message{Method: methodName(method), Result: clone(result)}
	m.ID, m.Params = cloneIDParams(id, params)
	if string(version) == Version {
		m.JSONRPC = Version
	} else {
		m.JSONRPC = string(version)
	}
	return true
}

// maxSharedParams is the size up to which params share one allocation
// with the id. Larger ones get their own, so that an id kept while a
// request runs never keeps large params alive with it.
const maxSharedParams = 1 << 10

// cloneIDParams copies a request's id and params: in one allocation when
// the params are small.
func cloneIDParams(id, params []byte) (ID, json.RawMessage) {
	if id == nil || params == nil || len(params) > maxSharedParams {
		return ID(clone(id)), clone(params)
	}
	b := make([]byte, 0, len(params)+len(id))
	b = append(append(b, params...), id...)
	return ID(b[len(params):]), b[:len(params):len(params)]
}

// methodNames caches the method names seen last, so that the common ones
// cost no allocation per message. It is a fixed table: clients sending
// many names only take turns in it.
var (
	methodNames    [64]atomic.Pointer[string]
	methodNameSeed = maphash.MakeSeed()
)

// methodName returns name as a string, from methodNames when it is there.
func methodName(name []byte) string {
	if name == nil {
		return ""
	}
	slot := &methodNames[maphash.Bytes(methodNameSeed, name)%uint64(len(methodNames))]
	if s := slot.Load(); s != nil && *s == string(name) {
		return *s
	}
	s := string(name)
	slot.Store(&s)
	return s
}

// clone copies b, keeping nil nil. Each member gets its own copy: an id
// kept while a request runs must not keep large params alive with it.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// plainString returns the body of a JSON string value with no escapes,
// or nil for any other value.
func plainString(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return nil // encoding/json resolves escapes and replaces invalid UTF-8
	}
	return v[1 : len(v)-1]
}

// check applies the envelope rules to decoded messages. An ambiguity that
// scan found comes first: it may be what makes a message break the rules.
func check(msgs []*Message, ambiguous *Error) *Error {
	if ambiguous != nil {
		return ambiguous
	}
	for _, m := range msgs {
		if e := m.validate(); e != nil {
			return e
		}
	}
	return nil
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

// scan makes one pass over the body before any decoder allocates for it.
// It returns a parse error for nesting deeper than MaxDepth, and else the
// first ambiguity among the envelope members of the message, or of each
// message of a batch (see checkMember), which Parse reports only once the
// body is known to be JSON.
func scan(b []byte) (tooDeep, ambiguous *Error) {
	var (
		depth   int
		objects uint64 // bit d-1 is set when the container at depth d is an object
		wantKey bool   // the next string is a key
		seen    uint8  // the envelope members seen in the current message
	)
	level := 1 // the depth of envelope members
	if len(b) > 0 && b[0] == '[' {
		level = 2
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			end := jsonscan.StringEnd(b, i)
			if wantKey && depth == level && ambiguous == nil {
				ambiguous = checkMember(jsonscan.Key(b[i:end]), &seen)
			}
			wantKey = false
			i = end - 1
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return Errorf(CodeParseError, "parse error: nesting deeper than %d levels", MaxDepth), nil
			}
			if c == '{' {
				objects |= 1 << (depth - 1)
				if depth == level {
					seen = 0
				}
			} else {
				objects &^= 1 << (depth - 1)
			}
			wantKey = c == '{'
		case '}', ']':
			if depth == 0 {
				// Not JSON; the decoder says where. Stopping here keeps
				// depth from going negative, where it cannot index
				// objects.
				return nil, ambiguous
			}
			depth--
			wantKey = false
		case ',':
			wantKey = depth > 0 && objects&(1<<(depth-1)) != 0
		}
	}
	return nil, ambiguous
}
