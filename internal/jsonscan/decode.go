package jsonscan

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// Valid checks JSON text, and Decode decodes it into the values
// encoding/json gives an `any` with UseNumber: map[string]any, []any,
// string, bool, nil and json.Number. Decode does so without reflection and in
// one pass, because every MCP request decodes small JSON documents
// (the envelope, the params, the arguments) and encoding/json's reflective
// decoder was the largest cost of a tools/call.
//
// They agree with encoding/json on every input (a fuzz test holds it to
// that): the same values for valid JSON, including strings with escapes
// and invalid UTF-8, and a refusal for invalid JSON. It does not explain
// a refusal: callers that need encoding/json's error text decode again
// with it, which costs nothing on the common path.

// maxDepth is encoding/json's nesting limit, so that both refuse the same
// documents.
const maxDepth = 10000

// Valid reports whether data is one JSON value, with optional whitespace
// around it.
func Valid(data []byte) bool {
	p := parser{data: data}
	p.skipSpace()
	if !p.value(false) {
		return false
	}
	p.skipSpace()
	return p.i == len(data)
}

// Decode decodes data, one JSON value with optional whitespace around it.
// ok is false when data is not valid JSON or nests deeper than
// encoding/json allows.
func Decode(data []byte) (v any, ok bool) {
	p := parser{data: data}
	p.skipSpace()
	if !p.value(true) {
		return nil, false
	}
	p.skipSpace()
	if p.i != len(data) {
		return nil, false
	}
	return p.v, true
}

// String decodes a JSON string as encoding/json does: escapes resolved,
// invalid UTF-8 and lone surrogates replaced by U+FFFD. ok is false when
// quoted is not exactly one JSON string.
func String(quoted []byte) (s string, ok bool) {
	p := parser{data: quoted}
	if len(quoted) == 0 || quoted[0] != '"' || !p.str(true) || p.i != len(quoted) {
		return "", false
	}
	return p.v.(string), true
}

type parser struct {
	data  []byte
	i     int
	depth int
	v     any // the last decoded value
}

func (p *parser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses the value at p.i; with keep it leaves it in p.v.
func (p *parser) value(keep bool) bool {
	if p.i >= len(p.data) {
		return false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(keep)
	case c == '[':
		return p.array(keep)
	case c == '"':
		return p.str(keep)
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number(keep)
	case c == 't':
		return p.literal("true", true, keep)
	case c == 'f':
		return p.literal("false", false, keep)
	case c == 'n':
		return p.literal("null", nil, keep)
	}
	return false
}

func (p *parser) literal(word string, v any, keep bool) bool {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	if keep {
		p.v = v
	}
	return true
}

func (p *parser) object(keep bool) bool {
	if p.depth++; p.depth > maxDepth {
		return false
	}
	p.i++ // {
	var m map[string]any
	if keep {
		m = map[string]any{}
	}
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		p.v = m
		return true
	}
	for {
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != '"' || !p.str(keep) {
			return false
		}
		var key string
		if keep {
			key = p.v.(string)
		}
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return false
		}
		p.i++
		p.skipSpace()
		if !p.value(keep) {
			return false
		}
		if keep {
			m[key] = p.v // the last of a repeated key wins, as in encoding/json
		}
		if more, ok := p.separator('}'); !more {
			p.v = m
			return ok
		}
	}
}

func (p *parser) array(keep bool) bool {
	if p.depth++; p.depth > maxDepth {
		return false
	}
	p.i++ // [
	var a []any
	if keep {
		a = []any{}
	}
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		p.v = a
		return true
	}
	for {
		p.skipSpace()
		if !p.value(keep) {
			return false
		}
		if keep {
			a = append(a, p.v)
		}
		if more, ok := p.separator(']'); !more {
			p.v = a
			return ok
		}
	}
}

// separator reads what follows an element of an object or array: a comma
// (more) or the container's end, close (ok).
func (p *parser) separator(close byte) (more, ok bool) {
	p.skipSpace()
	if p.i >= len(p.data) {
		return false, false
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		return true, true
	case close:
		p.i++
		p.depth--
		return false, true
	}
	return false, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number parses -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *parser) number(keep bool) bool {
	d, start := p.data, p.i
	i := p.i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return false
		}
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return false
		}
		for i++; i < len(d) && isDigit(d[i]); i++ {
		}
	}
	p.i = i
	if keep {
		p.v = json.Number(d[start:i])
	}
	return true
}

// str parses the string at p.i. Plain strings (no escapes, valid UTF-8)
// are one copy; the rest go through unquote.
func (p *parser) str(keep bool) bool {
	d := p.data
	i := p.i + 1
	plain := true
	for ; i < len(d); i++ {
		c := d[i]
		switch {
		case c == '"':
			if keep {
				if plain {
					p.v = string(d[p.i+1 : i])
				} else {
					p.v = unquote(d[p.i+1 : i])
				}
			}
			p.i = i + 1
			return true
		case c == '\\':
			plain = false
			i++
			if i >= len(d) {
				return false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(d)-i < 5 || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					return false
				}
				i += 4
			default:
				return false
			}
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size - 1
		}
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case isDigit(c):
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unquote resolves the escapes of a string's body that str has checked.
// A surrogate pair becomes its rune; a lone surrogate and each byte of
// invalid UTF-8 become U+FFFD, as encoding/json decodes them.
func unquote(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(s[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2 = utf16.DecodeRune(r, hex4(s[i+2:]))
					}
					if r2 != utf8.RuneError {
						i += 6
						r = r2
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default: // '"', '\\', '/'
				out = append(out, e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(out)
}
