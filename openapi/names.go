package openapi

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// MaxNameLength is the longest tool name MCP allows.
const MaxNameLength = 64

// ValidName reports whether s follows MCP's tool-name rules: 1 to 64
// characters from A-Z, a-z, 0-9, '_', '-' and '.'.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
}

// sanitize replaces each run of characters a name may not hold with one
// '_', trimming them at the ends.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for i := 0; i < len(s); i++ {
		if nameByte(s[i]) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteByte(s[i])
			continue
		}
		gap = true
	}
	return b.String()
}

// baseName is an operation's name before collisions: its operationId, or
// its method and path ("get_pets_petId"), made valid and cut to 64
// characters; a cut name ends in a hash of the whole, so that two long
// names sharing a prefix stay apart.
func baseName(operationID, method, path string) string {
	name := sanitize(operationID)
	if name == "" {
		name = sanitize(strings.ToLower(method) + path)
	}
	if name == "" {
		name = "operation"
	}
	if len(name) > MaxNameLength {
		h := fnv.New32a()
		h.Write([]byte(name))
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		name = name[:MaxNameLength-len(suffix)] + suffix
	}
	return name
}

// namer hands out unique names: the first operation to want a name (in
// the document's path and method order) gets it, later ones a "_2", "_3"
// suffix.
type namer map[string]bool

func (n namer) take(name string) string {
	if !n[name] {
		n[name] = true
		return name
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		cand := name
		if len(cand)+len(suffix) > MaxNameLength {
			cand = cand[:MaxNameLength-len(suffix)]
		}
		cand += suffix
		if !n[cand] {
			n[cand] = true
			return cand
		}
	}
}
