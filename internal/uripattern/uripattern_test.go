package uripattern

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		pattern, template string
		vars              []string
	}{
		{"app://config", "app://config", nil},
		{"app://studies/:id", "app://studies/{id}", []string{"id"}},
		{"app://studies/{id}", "app://studies/{id}", []string{"id"}},
		{"app://s/:sid/q/:qid", "app://s/{sid}/q/{qid}", []string{"sid", "qid"}},
		{"http://host:8080/x/:id", "http://host:8080/x/{id}", []string{"id"}},
		{"files://{+path}", "files://{+path}", []string{"path"}},
	} {
		p, err := Compile(tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if p.Written() != tc.pattern || p.Template() != tc.template || !reflect.DeepEqual(p.Vars(), tc.vars) || p.IsTemplate() != (tc.vars != nil) {
			t.Errorf("%s: written %q template %q vars %v template? %v", tc.pattern, p.Written(), p.Template(), p.Vars(), p.IsTemplate())
		}
	}
	for _, bad := range []string{"", "config", "app://{", "app://{}"} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("Compile(%q) succeeded", bad)
		}
	}
}

func TestMatchAndExpand(t *testing.T) {
	for _, tc := range []struct {
		pattern, uri string
		vals         map[string]any // nil: no match
	}{
		{"app://studies/:id", "app://studies/42", map[string]any{"id": "42"}},
		{"app://studies/{id}", "app://studies/42", map[string]any{"id": "42"}},
		{"app://s/:sid/q/:qid", "app://s/1/q/2", map[string]any{"sid": "1", "qid": "2"}},
		{"http://host:8080/x/:id", "http://host:8080/x/7", map[string]any{"id": "7"}},
		{"app://studies/{id}", "app://studies/a%20b", map[string]any{"id": "a b"}},
		{"app://studies/:id", "app://other/42", nil},
		{"app://studies/:id", "app://studies/", nil},
		{"app://config", "app://config", map[string]any{}},
		{"app://config", "app://config2", nil},
	} {
		p, err := Compile(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		vals, ok := p.Match(tc.uri)
		if ok != (tc.vals != nil) {
			t.Errorf("%s ~ %s: match %v", tc.pattern, tc.uri, ok)
			continue
		}
		if !ok {
			continue
		}
		if len(vals) != len(tc.vals) || (len(vals) > 0 && !reflect.DeepEqual(vals, tc.vals)) {
			t.Errorf("%s ~ %s: %v, want %v", tc.pattern, tc.uri, vals, tc.vals)
		}
		if back, err := p.Expand(tc.vals); err != nil || back != tc.uri {
			t.Errorf("%s: Expand(%v) = %q, %v; want %q", tc.pattern, tc.vals, back, err, tc.uri)
		}
	}
}

// TestMatchRefusesEscapes: decoded values cannot carry a path out of a
// segment, nor control characters (issue 9, item 9).
func TestMatchRefusesEscapes(t *testing.T) {
	for _, tc := range []struct {
		pattern, uri string
		vals         map[string]any // nil: no match
	}{
		{"files://docs/{name}", "files://docs/..%2F..%2Fetc%2Fpasswd", nil},
		{"files://docs/{name}", "files://docs/..", nil},
		{"files://docs/{name}", "files://docs/a..b", nil},
		{"files://docs/{name}", "files://docs/a%5Cb", nil},
		{"files://docs/{name}", "files://docs/a%00b", nil},
		{"files://docs/{name}", "files://docs/a%0d%0ab", nil},
		{"files://docs/{name}", "files://docs/a%7Fb", nil},
		{"files://docs/:name", "files://docs/%2e%2e", nil},
		{"app://s{/seg}", "app://s/a%2Fb", nil},
		{"app://s/{x*}", "app://s/a,b%2F..", nil},
		{"files://docs/{name}", "files://docs/read%20me.txt", map[string]any{"name": "read me.txt"}},
		{"files://docs/{name}", "files://docs/caf%C3%A9", map[string]any{"name": "café"}},
		{"files://docs/{name}", "files://docs/.profile", map[string]any{"name": ".profile"}},
		{"app://s{?q}", "app://s?q=a%2F..%2Fb", map[string]any{"q": "a/../b"}},
		{"app://s{?q}", "app://s?q=a%00", nil},
		{"files://{+path}", "files://a/b/c.txt", map[string]any{"path": "a/b/c.txt"}},
		{"files://{+path}", "files://a/../b", map[string]any{"path": "b"}},
		{"files://{+path}", "files://../../etc/passwd", map[string]any{"path": "etc/passwd"}},
		{"files://{+path}", "files://a%2F..%2F..%2Fb", map[string]any{"path": "b"}},
		{"files://{+path}", "files://a/./b//c/", map[string]any{"path": "a/b/c"}},
		{"files://{+path}", "files:///etc/../../x", map[string]any{"path": "/x"}},
		{"files://{+path}", "files://a/..", nil},
		{"files://{+path}", "files://..", nil},
		{"files://{+path}", "files://a%5C..%5Cb", nil},
		{"files://{+path}", "files://a%00", nil},
		{"files://{+path}", "files://a%0d%0aSet-Cookie:x", nil},
		{"app://x{#frag}", "app://x#a/../../b", map[string]any{"frag": "b"}},
	} {
		p, err := Compile(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		vals, ok := p.Match(tc.uri)
		if ok != (tc.vals != nil) || (ok && !reflect.DeepEqual(vals, tc.vals)) {
			t.Errorf("%s ~ %s: %q %v, want %q", tc.pattern, tc.uri, vals, ok, tc.vals)
		}
	}
}

func TestExpandNeedsEveryVariable(t *testing.T) {
	p, _ := Compile("app://s/:sid/q/:qid")
	if u, err := p.Expand(map[string]any{"sid": 1}); err == nil {
		t.Errorf("Expand without qid = %q", u)
	}
	if u, err := p.Expand(map[string]any{"sid": 1, "qid": "x/y"}); err != nil || u != "app://s/1/q/x%2Fy" {
		t.Errorf("Expand = %q, %v", u, err)
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range []string{"app://studies/42", "app://studies/%2F", "files://a/../b", "app://studies/%zz"} {
		f.Add(s)
	}
	pats := []*Pattern{}
	for _, s := range []string{"app://studies/:id", "files://{+path}", "app://q{?a,b}", "app://l/{x*}"} {
		p, err := Compile(s)
		if err != nil {
			f.Fatal(err)
		}
		pats = append(pats, p)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		for _, p := range pats {
			vals, _ := p.Match(uri)
			for name, v := range vals {
				s, _ := v.(string)
				if l, ok := v.([]any); ok && len(l) > 0 {
					s, _ = l[0].(string)
				}
				if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
					t.Fatalf("%s ~ %q: %s=%q holds a control character", p.Written(), uri, name, s)
				}
				if name == "id" && (strings.ContainsAny(s, "/\\") || strings.Contains(s, "..")) {
					t.Fatalf("%s ~ %q: the segment %s=%q escapes", p.Written(), uri, name, s)
				}
				if name == "path" && slices.Contains(strings.Split(s, "/"), "..") {
					t.Fatalf("%s ~ %q: %s=%q climbs", p.Written(), uri, name, s)
				}
			}
		}
	})
}
