package methods

import (
	"bytes"
	"encoding/json"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

// Compact returns a request's params without the members no method
// reads. A request keeps its params while its handler runs, which may be
// long (waiting for the client to answer a question), so a member nobody
// reads must not keep its memory: the request's footprint is then what
// its methods use, not what the client sent. The members kept are those
// of paramMembers and every key a decoder could match to one (case
// variants, which CheckParams refuses), as written and in order. Params
// with nothing to drop, or that are no object, come back as they are,
// without copying.
func Compact(params json.RawMessage) json.RawMessage {
	o, ok := jsonscan.Members(params)
	if !ok {
		return params
	}
	for {
		key, _, ok := o.Next()
		if !ok {
			return params // nothing to drop: the common case costs no allocation
		}
		if !readMember(key) {
			break
		}
	}
	out := make([]byte, 0, 256)
	out = append(out, '{')
	o, _ = jsonscan.Members(params)
	for {
		key, value, ok := o.Next()
		if !ok {
			break
		}
		if !readMember(key) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(string(key)) // a member name or a case variant: short
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, value...)
	}
	return append(out, '}')
}

// readMember reports whether a decoder could read the member key of
// params: it is one of paramMembers, up to case, as encoding/json matches.
func readMember(key []byte) bool {
	for _, name := range paramMembers {
		if len(key) <= 4*len(name) && len(name) <= 4*len(key) && bytes.EqualFold(key, []byte(name)) {
			return true
		}
	}
	return false
}
