package uripattern

import (
	"reflect"
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
			p.Match(uri) // must not panic
		}
	})
}
