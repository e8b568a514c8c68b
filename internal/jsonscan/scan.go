// Package jsonscan reads JSON text without reflection: it walks the
// members of JSON objects and the elements of JSON arrays without
// decoding the values, and it checks and decodes values into what
// encoding/json gives an `any` (see Decode).
//
// The walk serves the strict checks that look for keys two decoders would read
// differently (a key given twice, a key that differs from a declared name
// only in case): those checks need the text, since a decoded map or struct
// has already picked one of the readings.
//
// The walk trusts its input to be valid JSON; callers check that first
// (encoding/json does, before it decodes anything). On invalid input it
// still terminates and never panics, but what it yields is unspecified.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Object iterates the members of a JSON object. The zero value yields
// nothing.
type Object struct {
	data []byte
	pos  int
}

// Members returns an iterator over the object that data holds; ok is false
// when data (after whitespace) is not an object.
func Members(data []byte) (o Object, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return Object{}, false
	}
	return Object{data: data, pos: i}, true
}

// Next returns the next member: its key, decoded as encoding/json decodes
// it, and its value as JSON text. The key aliases the input unless it holds
// escapes or invalid UTF-8.
func (o *Object) Next() (key, value []byte, ok bool) {
	d := o.data
	i := skipSpace(d, o.pos)
	if i >= len(d) || (d[i] != '{' && d[i] != ',') {
		o.pos = len(d)
		return nil, nil, false
	}
	i = skipSpace(d, i+1)
	if i >= len(d) || d[i] != '"' {
		o.pos = len(d)
		return nil, nil, false
	}
	end := StringEnd(d, i)
	key = Key(d[i:end])
	i = skipSpace(d, end)
	if i >= len(d) || d[i] != ':' {
		o.pos = len(d)
		return nil, nil, false
	}
	i = skipSpace(d, i+1)
	end = skipValue(d, i)
	o.pos = end
	return key, d[i:end], true
}

// Array iterates the elements of a JSON array. The zero value yields
// nothing.
type Array struct {
	data []byte
	pos  int
}

// Elements returns an iterator over the array that data holds; ok is
// false when data (after whitespace) is not an array.
func Elements(data []byte) (a Array, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return Array{}, false
	}
	return Array{data: data, pos: i}, true
}

// Next returns the next element as JSON text.
func (a *Array) Next() (value []byte, ok bool) {
	d := a.data
	i := skipSpace(d, a.pos)
	if i >= len(d) || (d[i] != '[' && d[i] != ',') {
		a.pos = len(d)
		return nil, false
	}
	i = skipSpace(d, i+1)
	if i >= len(d) || d[i] == ']' {
		a.pos = len(d)
		return nil, false
	}
	end := skipValue(d, i)
	a.pos = end
	return d[i:end], true
}

// Key decodes a quoted key, as encoding/json does: escapes resolved and
// invalid UTF-8 replaced by U+FFFD, so that two spellings of one key compare
// equal. Plain keys, by far the most common, are returned without copying.
func Key(quoted []byte) []byte {
	if len(quoted) < 2 {
		return nil
	}
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return raw
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return raw
	}
	return []byte(s)
}

func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the index after the JSON string that starts at d[i],
// a quote, or len(d) if it does not end.
func StringEnd(d []byte, i int) int {
	i++
	for {
		// IndexByte is vectorized; escapes are rare, so the quote is
		// found first and its backslashes counted after.
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			return len(d)
		}
		i += q
		escaped := false
		for j := i - 1; j >= 0 && d[j] == '\\'; j-- {
			escaped = !escaped
		}
		i++
		if !escaped {
			return i
		}
	}
}

// structural marks the bytes that matter inside an array or object.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// skipValue returns the index after the value that starts at d[i].
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return StringEnd(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = StringEnd(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			for i++; i < len(d) && !structural[d[i]]; i++ {
			}
		}
		return len(d)
	}
	for i < len(d) {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// Set remembers the keys of one object to find a key given twice. The zero
// value is empty; objects of up to 16 keys cost no allocation.
type Set struct {
	small [16][]byte
	n     int
	big   map[string]struct{}
}

// Add records key and reports whether it was there already. The set keeps
// key, which must not change while the set is in use.
func (s *Set) Add(key []byte) (repeated bool) {
	if s.big != nil {
		if _, ok := s.big[string(key)]; ok {
			return true
		}
		s.big[string(key)] = struct{}{}
		return false
	}
	for _, k := range s.small[:s.n] {
		if bytes.Equal(k, key) {
			return true
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = key
		s.n++
		return false
	}
	s.big = make(map[string]struct{}, 2*len(s.small))
	for _, k := range s.small {
		s.big[string(k)] = struct{}{}
	}
	s.big[string(key)] = struct{}{}
	return false
}
