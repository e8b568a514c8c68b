package uripattern

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// matcher matches URIs against an RFC 6570 template with one Go regular
// expression, so that matching costs time linear in the URI with a small
// constant (RE2 guarantees it) whatever the template and the input. The
// expression is the one the template's own matching grammar gives (the
// same alternatives, tried in the same order), with one group per
// variable around all of its text: a list's items are split out of it
// afterwards.
type matcher struct {
	re   *regexp.Regexp
	vars []capture // by group, from group 1
}

// capture is how a variable's text splits into values.
type capture struct {
	name  string
	sep   string // between a list's items
	named bool   // items are name=value ({;x*}, {?x*}, {&x*})
	whole bool   // the value class holds sep: the text is one value
}

// Character classes of RFC 6570 values: unreserved characters, plus the
// reserved ones for "+" and "#" expansions, or a percent-escape.
const (
	unreserved = `A-Za-z0-9\-._~`
	reserved   = `:/?#\[\]@!$&'()*+,;=`
	escape     = `%[0-9A-Fa-f]{2}`
)

// maxRepeat is the largest count Go's regexp takes in {m,n}.
const maxRepeat = 1000

// compileMatcher builds the matcher of a template that uritemplate.New
// accepted.
func compileMatcher(tmpl string) (*matcher, error) {
	m := &matcher{}
	var b strings.Builder
	b.WriteByte('^')
	for rest := tmpl; rest != ""; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		j := strings.IndexByte(rest[i:], '}') + i
		m.expression(&b, rest[i+1:j])
		rest = rest[j+1:]
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	m.re = re
	return m, nil
}

// expression writes the expression of one {…} of the template.
func (m *matcher) expression(b *strings.Builder, expr string) {
	var op byte
	if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
		op, expr = expr[0], expr[1:]
	}
	first, sep, ifemp, named := "", ",", "", false
	class := unreserved
	switch op {
	case '+':
		class += reserved
	case '#':
		first, class = "#", class+reserved
	case '.':
		first, sep = ".", "."
	case '/':
		first, sep = "/", "/"
	case ';':
		first, sep, named = ";", ";", true
	case '?', '&':
		first, sep, ifemp, named = string(op), "&", "=", true
	}
	unit := `(?:[` + class + `]|` + escape + `)`
	b.WriteString("(?:" + regexp.QuoteMeta(first))
	for i, spec := range strings.Split(expr, ",") {
		name, explode := strings.CutSuffix(spec, "*")
		value := unit + "*"
		n, limit, prefixed := strings.Cut(name, ":")
		if prefixed {
			name = n
			if l, err := strconv.Atoi(limit); err == nil && l <= maxRepeat {
				value = unit + "{0," + limit + "}"
			}
		}
		b.WriteString("(?:")
		if i > 0 {
			b.WriteString("(?:" + regexp.QuoteMeta(sep) + ")?")
		}
		c := capture{name: name, sep: ",", named: named && explode}
		switch {
		case named && explode:
			// name=value or name alone, repeated with sep.
			c.sep = sep
			item := regexp.QuoteMeta(name) + "(?:=" + value + "|" + regexp.QuoteMeta(ifemp) + ")"
			b.WriteString("(" + item + "(?:" + regexp.QuoteMeta(sep) + item + ")*)?")
		case named:
			// name=value,value… or name alone.
			b.WriteString(regexp.QuoteMeta(name) + "(?:=(" + value + "(?:," + value + ")*)|" + regexp.QuoteMeta(ifemp) + ")")
		default:
			if explode {
				c.sep = sep
			}
			b.WriteString("(" + value + "(?:" + regexp.QuoteMeta(c.sep) + value + ")*?)")
		}
		// A class that holds the separator takes the whole text as one
		// value: the grammar prefers the longest first value, which only
		// a prefix's length limit cuts short.
		c.whole = !c.named && !prefixed && strings.Contains(class, c.sep)
		b.WriteString(")?")
		m.vars = append(m.vars, c)
	}
	b.WriteString(")?")
}

// match returns each variable's raw values (still escaped) in uri, nil
// for no match. A variable without a value is absent.
func (m *matcher) match(uri string) map[string][]string {
	idx := m.re.FindStringSubmatchIndex(uri)
	if idx == nil {
		return nil
	}
	out := make(map[string][]string, len(m.vars))
	for g, c := range m.vars {
		lo, hi := idx[2*g+2], idx[2*g+3]
		if lo < 0 {
			continue
		}
		text := uri[lo:hi]
		switch {
		case c.named:
			for _, item := range strings.Split(text, c.sep) {
				if v, ok := strings.CutPrefix(item[len(c.name):], "="); ok {
					out[c.name] = append(out[c.name], v)
				}
			}
		case c.whole:
			out[c.name] = append(out[c.name], text)
		default:
			out[c.name] = append(out[c.name], strings.Split(text, c.sep)...)
		}
	}
	return out
}

// unescape decodes the percent-escapes of a value the matcher took,
// which are all well-formed.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	v, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return v
}
