package stream

import (
	"mime"
	"strings"
)

// IsMediaType reports whether a Content-Type header names want.
func IsMediaType(header, want string) bool {
	if strings.EqualFold(header, want) {
		return true // the usual case, without the map of parameters ParseMediaType makes
	}
	mt, _, err := mime.ParseMediaType(header)
	return err == nil && strings.EqualFold(mt, want)
}

// Accepts reports whether an Accept header admits the media type want,
// directly or through a wildcard range.
func Accepts(header, want string) bool {
	typ, _, _ := strings.Cut(want, "/")
	for part := range strings.SplitSeq(header, ",") {
		mr, _, _ := strings.Cut(part, ";")
		mr = strings.ToLower(strings.TrimSpace(mr))
		if mr == want || mr == "*/*" || mr == typ+"/*" {
			return true
		}
	}
	return false
}
