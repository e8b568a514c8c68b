package specter

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// plugVar finds Plug-style variables (":id") in a resource pattern. The
// scheme's colon is followed by "//" and a port by digits, so neither
// matches.
var plugVar = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// uriPattern is a compiled resource pattern: a fixed URI, or an RFC 6570
// template with its variables.
type uriPattern struct {
	written  string // as declared
	template string // RFC 6570 form
	t        *uritemplate.Template
	vars     []string
}

func compilePattern(pattern string) (*uriPattern, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty URI")
	}
	tmpl := plugVar.ReplaceAllString(pattern, "{$1}")
	p := &uriPattern{written: pattern, template: tmpl}
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
	p.t = t
	p.vars = t.Varnames()
	if len(p.vars) == 0 {
		return nil, fmt.Errorf("invalid URI template %q: no variables", pattern)
	}
	return p, nil
}

func (p *uriPattern) isTemplate() bool { return p.t != nil }

// match reports whether uri belongs to the pattern, with the variables'
// values.
func (p *uriPattern) match(uri string) (map[string]any, bool) {
	if p.t == nil {
		return nil, uri == p.template
	}
	vals := p.t.Match(uri)
	if vals == nil {
		return nil, false
	}
	out := make(map[string]any, len(p.vars))
	for _, name := range p.vars {
		v := vals.Get(name)
		if !v.Valid() {
			continue
		}
		switch v.T {
		case uritemplate.ValueTypeString:
			s := v.String()
			if s == "" {
				// A template variable matches one non-empty value.
				return nil, false
			}
			out[name] = s
		case uritemplate.ValueTypeList:
			l := v.List()
			vs := make([]any, len(l))
			for i, s := range l {
				vs[i] = s
			}
			out[name] = vs
		}
	}
	return out, true
}

// expand builds a URI from the pattern and values: the reverse route.
func (p *uriPattern) expand(values map[string]any) (string, error) {
	if p.t == nil {
		return p.template, nil
	}
	vals := uritemplate.Values{}
	for _, name := range p.vars {
		v, ok := values[name]
		if !ok {
			return "", fmt.Errorf("specter: %q needs a value for %q", p.written, name)
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
