// Package uripattern compiles the URI patterns resources are declared
// with: a fixed URI ("app://config"), a Plug-style pattern
// ("app://studies/:id") or an RFC 6570 template ("app://studies/{id}").
// A compiled pattern matches URIs, giving the variables' values, and
// expands values back into a URI.
//
// Matching decodes percent-escapes, so a value may hold what its URI
// could only carry escaped. Because handlers use values as file names,
// keys and paths, Match refuses what would let a URI escape them: a value
// with a control character (NUL, CR, LF, …), and a value of a
// single-segment variable ({id}, {.x}, {/x}, {;x}) that holds "/", "\"
// or "..". A reserved expansion ({+path}, {#path}) may span segments: its
// value is cleaned like path.Clean, with ".." never climbing above its
// start (a leading "/" is kept), and refused if it holds "\" or nothing
// is left. Query variables ({?q}, {&q}) are checked for control
// characters only.
//
// Matching costs time linear in the URI's length, whatever the template
// (see matcher); a server still bounds the URIs it accepts, so that no
// request makes it match megabytes.
package uripattern

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// plugVar finds Plug-style variables (":id"). The scheme's colon is
// followed by "//" and a port's by digits, so neither matches.
var plugVar = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// Pattern is a compiled resource pattern: a fixed URI, or an RFC 6570
// template with its variables. It is immutable.
type Pattern struct {
	written  string
	template string
	t        *uritemplate.Template
	m        *matcher
	vars     []string
	ops      map[string]byte // each variable's operator: '+', '#', '?', …, or 0
}

// Compile compiles a pattern. It fails for an empty pattern, a fixed URI
// without a scheme, and a template that does not parse or has no
// variable.
func Compile(pattern string) (*Pattern, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty URI")
	}
	tmpl := plugVar.ReplaceAllString(pattern, "{$1}")
	p := &Pattern{written: pattern, template: tmpl}
	if !strings.ContainsAny(tmpl, "{}") {
		if !strings.Contains(tmpl, ":") {
			return nil, fmt.Errorf("%q is not a URI: it has no scheme", pattern)
		}
		return p, nil
	}
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, fmt.Errorf("invalid URI template %q: %w", pattern, err)
	}
	if p.m, err = compileMatcher(tmpl); err != nil {
		return nil, fmt.Errorf("invalid URI template %q: %w", pattern, err)
	}
	p.t = t
	p.vars = t.Varnames()
	p.ops = operators(tmpl)
	if len(p.vars) == 0 {
		return nil, fmt.Errorf("invalid URI template %q: no variables", pattern)
	}
	return p, nil
}

// Written is the pattern as declared.
func (p *Pattern) Written() string { return p.written }

// Template is the RFC 6570 form of the pattern; for a fixed URI, the URI.
func (p *Pattern) Template() string { return p.template }

// IsTemplate reports whether the pattern has variables.
func (p *Pattern) IsTemplate() bool { return p.t != nil }

// Vars are the template's variable names, in order; nil for a fixed URI.
func (p *Pattern) Vars() []string { return p.vars }

// Match reports whether uri belongs to the pattern, with the variables'
// values: a string, or a []any of strings for an explode list. A
// variable matches one non-empty value, which must be safe as the package
// doc says; reserved expansions give their cleaned value.
func (p *Pattern) Match(uri string) (map[string]any, bool) {
	if p.t == nil {
		return nil, uri == p.template
	}
	vals := p.m.match(uri)
	if vals == nil {
		return nil, false
	}
	out := make(map[string]any, len(vals))
	for name, raw := range vals {
		vs := make([]any, len(raw))
		for i, r := range raw {
			var ok bool
			if vs[i], ok = safe(p.ops[name], unescape(r)); !ok {
				return nil, false
			}
		}
		if len(vs) == 1 {
			out[name] = vs[0]
		} else {
			out[name] = vs
		}
	}
	return out, true
}

// safe checks a decoded value of a variable with operator op, and cleans
// a reserved one.
func safe(op byte, v string) (string, bool) {
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	switch op {
	case '?', '&': // query values are no path segments
	case '+', '#':
		clean := path.Clean("/" + v) // rooted, so ".." stops at the start
		if !strings.HasPrefix(v, "/") {
			clean = clean[1:]
		}
		if strings.Contains(clean, "\\") {
			return "", false
		}
		v = clean
	default:
		if strings.ContainsAny(v, "/\\") || strings.Contains(v, "..") {
			return "", false
		}
	}
	return v, v != ""
}

// operators maps each variable of an RFC 6570 template to the operator
// of its expression.
func operators(tmpl string) map[string]byte {
	ops := map[string]byte{}
	for rest := tmpl; ; {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest, '}')
		if i < 0 || j < i {
			return ops
		}
		expr := rest[i+1 : j]
		rest = rest[j+1:]
		var op byte
		if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
			op, expr = expr[0], expr[1:]
		}
		for _, spec := range strings.Split(expr, ",") {
			name, _, _ := strings.Cut(spec, ":")
			ops[strings.TrimSuffix(name, "*")] = op
		}
	}
}

// Expand builds a URI from the pattern and values, the reverse of Match.
// Every variable needs a value: a []string, or any value, formatted with
// fmt.Sprint. Values are escaped as RFC 6570 prescribes.
func (p *Pattern) Expand(values map[string]any) (string, error) {
	if p.t == nil {
		return p.template, nil
	}
	vals := uritemplate.Values{}
	for _, name := range p.vars {
		v, ok := values[name]
		if !ok {
			return "", fmt.Errorf("%q needs a value for %q", p.written, name)
		}
		switch x := v.(type) {
		case []string:
			vals.Set(name, uritemplate.List(x...))
		default:
			vals.Set(name, uritemplate.String(fmt.Sprint(x)))
		}
	}
	return p.t.Expand(vals)
}

// Canonical returns the URI the pattern gives for values, as Match found
// them in a URI: one spelling for every URI that holds the same values,
// whatever it escaped, and with reserved expansions cleaned. Variables
// without a value are left out, as RFC 6570 expands undefined ones. A
// fixed URI is its own canonical form.
func (p *Pattern) Canonical(values map[string]any) (string, error) {
	if p.t == nil {
		return p.template, nil
	}
	vals := uritemplate.Values{}
	for name, v := range values {
		switch x := v.(type) {
		case string:
			vals.Set(name, uritemplate.String(x))
		case []any:
			l := make([]string, len(x))
			for i, s := range x {
				l[i], _ = s.(string)
			}
			vals.Set(name, uritemplate.List(l...))
		}
	}
	return p.t.Expand(vals)
}

// Normalize returns uri with its percent-escapes normalized as RFC 3986
// §6.2.2 says: an escaped unreserved character (ALPHA, DIGIT, "-", ".",
// "_", "~") is decoded, and the hex digits of the other escapes are
// upper case. URIs that differ only in such escapes name the same
// resource, and after Normalize they are the same string.
func Normalize(uri string) string {
	i := strings.IndexByte(uri, '%')
	if i < 0 {
		return uri
	}
	b := make([]byte, 0, len(uri))
	b = append(b, uri[:i]...)
	for ; i < len(uri); i++ {
		c := uri[i]
		if c != '%' || i+2 >= len(uri) || !isHex(uri[i+1]) || !isHex(uri[i+2]) {
			b = append(b, c)
			continue
		}
		d := unhex(uri[i+1])<<4 | unhex(uri[i+2])
		if isUnreserved(d) {
			b = append(b, d)
		} else {
			b = append(b, '%', upper(uri[i+1]), upper(uri[i+2]))
		}
		i += 2
	}
	return string(b)
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
