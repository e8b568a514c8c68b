package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

// envelope lists the members of a JSON-RPC message, as Message decodes them.
var envelope = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// checkMember records key, a member of a message's envelope, in seen and
// rejects a message that decoders could read differently: one whose
// members repeat, or whose keys differ from a member only in case
// (encoding/json matches {"Method":…} to Method, another parser ignores
// it). Other members are ignored.
func checkMember(key []byte, seen *uint8) *Error {
	if i := exactMember(key); i >= 0 {
		if *seen&(1<<i) != 0 {
			return Errorf(CodeInvalidRequest, "Invalid Request: member %q appears twice", envelope[i])
		}
		*seen |= 1 << i
		return nil
	}
	if name, ok := foldsTo(key, envelope[:]); ok {
		return Errorf(CodeInvalidRequest, "Invalid Request: %s is not %q: member names are case-sensitive", quoteKey(key), name)
	}
	return nil
}

// exactMember returns the index of key in envelope, or -1.
func exactMember(key []byte) int {
	switch string(key) {
	case "jsonrpc":
		return 0
	case "id":
		return 1
	case "method":
		return 2
	case "params":
		return 3
	case "result":
		return 4
	case "error":
		return 5
	}
	return -1
}

// foldsTo returns the name of names that key equals under Unicode case
// folding, the matching encoding/json does, when key is not that name.
func foldsTo(key []byte, names []string) (string, bool) {
	for _, n := range names {
		// Runes that fold together are 1 to 4 bytes long, which rules
		// most keys out before EqualFold.
		if len(key) <= 4*len(n) && len(n) <= 4*len(key) && bytes.EqualFold(key, []byte(n)) && string(key) != n {
			return n, true
		}
	}
	return "", false
}

// quoteKey quotes a key from a request for an error message, shortened so
// that a huge key cannot make a huge answer.
func quoteKey(key []byte) string {
	const max = 64
	if len(key) > max {
		return strconv.Quote(string(key[:max])) + "…"
	}
	return strconv.Quote(string(key))
}

// CheckMembers reports a member of the JSON object obj that decoders could
// read differently: a key given twice, or a key that differs only in case
// from one of names, the members the caller decodes into a struct
// (encoding/json matches struct fields case-insensitively, most other
// parsers do not). The error has CodeInvalidParams and names the key.
//
// It checks one level: check a nested object, such as "_meta", with a call
// of its own. obj must be valid JSON, as Parse leaves a message's params;
// anything but an object passes.
func CheckMembers(obj json.RawMessage, names ...string) *Error {
	_, e := CheckMembersFor(obj, "", names...)
	return e
}

// CheckMembersFor is CheckMembers that also returns the value of the
// member named member, if obj has it, from the same pass: a caller that
// checks a nested object next need not look for it again.
func CheckMembersFor(obj json.RawMessage, member string, names ...string) (json.RawMessage, *Error) {
	o, ok := jsonscan.Members(obj)
	if !ok {
		return nil, nil
	}
	var seen jsonscan.Set
	var found json.RawMessage
	for {
		key, value, ok := o.Next()
		if !ok {
			return found, nil
		}
		if seen.Add(key) {
			return nil, Errorf(CodeInvalidParams, "Invalid params: member %s appears twice", quoteKey(key))
		}
		if name, ok := foldsTo(key, names); ok {
			return nil, Errorf(CodeInvalidParams, "Invalid params: %s is not %q: member names are case-sensitive", quoteKey(key), name)
		}
		if member != "" && string(key) == member {
			found = value
		}
	}
}
