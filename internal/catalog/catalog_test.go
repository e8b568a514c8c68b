package catalog

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/params"
)

// entry is a declaration as a test declares it.
type entry struct {
	kind    Kind
	name    string
	pattern *uripattern.Pattern
	files   map[string]bool // a skill's
}

func (e *entry) Kind() Kind                   { return e.kind }
func (e *entry) Name() string                 { return e.name }
func (e *entry) Pattern() *uripattern.Pattern { return e.pattern }
func (e *entry) IsSkill() bool                { return e.files != nil }
func (e *entry) Serves(uri string) bool       { return e.files[uri] }

func resource(t *testing.T, pattern string) *entry {
	t.Helper()
	p, err := uripattern.Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return &entry{kind: Resource, name: pattern, pattern: p}
}

func add(t *testing.T, c *Catalog[*entry], e *entry) *Catalog[*entry] {
	t.Helper()
	n, err := c.Add(e)
	if err != nil {
		t.Fatalf("Add %s: %v", e.name, err)
	}
	return n
}

func TestCompile(t *testing.T) {
	typed, _ := params.New(params.String("q"))
	for _, tc := range []struct {
		name string
		spec Spec
		err  string // "" for success
	}{
		{"tool", Spec{Kind: Tool, Name: "search", Fields: []params.Field{params.String("q", params.Header("Q"))}}, ""},
		{"tool name", Spec{Kind: Tool, Name: "no spaces"}, "tool names are"},
		{"typed and fields", Spec{Kind: Tool, Name: "t", Typed: typed, Fields: []params.Field{params.String("x")}}, "takes its params from its struct"},
		{"raw and fields", Spec{Kind: Tool, Name: "t", RawInput: json.RawMessage(`{"type":"object"}`), Fields: []params.Field{params.String("x")}}, "cannot be combined"},
		{"bad output schema", Spec{Kind: Tool, Name: "t", OutputSchema: json.RawMessage(`{"type":7}`)}, "output schema"},
		{"prompt", Spec{Kind: Prompt, Name: "p", Fields: []params.Field{params.String("topic", params.Required())}}, ""},
		{"prompt without name", Spec{Kind: Prompt}, "needs a name"},
		{"prompt integer", Spec{Kind: Prompt, Name: "p", Fields: []params.Field{params.Integer("n")}}, "prompt arguments are strings"},
		{"prompt raw", Spec{Kind: Prompt, Name: "p", RawInput: json.RawMessage(`{"type":"object"}`)}, "not a raw input schema"},
		{"fixed resource", Spec{Kind: Resource, Name: "app://config"}, ""},
		{"template", Spec{Kind: Resource, Name: "app://s/:id", Completed: []string{"id"}, Listed: true}, ""},
		{"bad URI", Spec{Kind: Resource, Name: "config"}, "no scheme"},
		{"resource params", Spec{Kind: Resource, Name: "app://config", Fields: []params.Field{params.String("x")}}, "takes no params"},
		{"list on fixed URI", Spec{Kind: Resource, Name: "app://config", Listed: true}, "List applies to resource templates"},
		{"completer of no variable", Spec{Kind: Resource, Name: "app://s/:id", Completed: []string{"nope"}}, `Complete("nope")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(&tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.spec.Kind == Tool && (c.Tool == nil || c.Tool.Name != tc.spec.Name):
				t.Errorf("tool %+v", c.Tool)
			case tc.spec.Kind == Prompt && (c.Prompt == nil || len(c.Prompt.Arguments) != 1 || !c.Prompt.Arguments[0].Required):
				t.Errorf("prompt %+v", c.Prompt)
			case tc.spec.Kind == Resource && (c.Pattern == nil || (c.Resource == nil) == (c.Template == nil)):
				t.Errorf("resource %+v template %+v", c.Resource, c.Template)
			}
		})
	}
	c, _ := Compile(&Spec{Kind: Tool, Name: "search", Fields: []params.Field{params.String("q", params.Header("Q")), params.String("x")}})
	if len(c.Headers) != 1 || c.Headers[0].Param != "q" || c.Headers[0].Header != "Q" {
		t.Errorf("headers %+v", c.Headers)
	}
	c, _ = Compile(&Spec{Kind: Resource, Name: "app://s/:id", ResourceName: "study"})
	if c.Template.URITemplate != "app://s/{id}" || c.Template.Name != "study" {
		t.Errorf("template %+v", c.Template)
	}
}

func TestAddAndRemove(t *testing.T) {
	empty := New[*entry]()
	tool := &entry{kind: Tool, name: "t"}
	c := add(t, empty, tool)
	c = add(t, c, &entry{kind: Prompt, name: "p"})
	c = add(t, c, resource(t, "app://config"))
	tmpl := resource(t, "app://s/:id")
	c = add(t, c, tmpl)
	if len(empty.Tools) != 0 || len(empty.ByURI) != 0 {
		t.Fatal("Add changed the snapshot it started from")
	}
	for _, dup := range []*entry{{kind: Tool, name: "t"}, {kind: Prompt, name: "p"}, resource(t, "app://config"), resource(t, "app://s/{id}")} {
		if _, err := c.Add(dup); err == nil || !strings.Contains(err.Error(), "already declared") {
			t.Errorf("duplicate %s: %v", dup.name, err)
		}
	}
	if c.ByURI["app://s/:id"] != tmpl || c.ByURI["app://s/{id}"] != tmpl || len(c.Templates) != 1 || len(c.Resources) != 1 {
		t.Errorf("template indexed as %v", c.ByURI)
	}
	before := c
	c, ok := c.Remove(Resource, "app://s/{id}") // the other syntax
	if !ok || len(c.Templates) != 0 || c.ByURI["app://s/:id"] != nil || c.ByURI["app://s/{id}"] != nil {
		t.Errorf("Remove template: %v %+v", ok, c)
	}
	if len(before.Templates) != 1 {
		t.Error("Remove changed the snapshot it started from")
	}
	if _, ok := c.Remove(Resource, "app://s/{id}"); ok {
		t.Error("removed twice")
	}
	if c, ok = c.Remove(Tool, "t"); !ok || len(c.Tools) != 0 || c.ByTool["t"] != nil {
		t.Error("Remove tool")
	}
	if c, ok = c.Remove(Prompt, "p"); !ok || len(c.Prompts) != 0 {
		t.Error("Remove prompt")
	}
}

func TestResourceFor(t *testing.T) {
	c := New[*entry]()
	fixed := resource(t, "app://s/special")
	tmpl := resource(t, "app://s/:id")
	other := resource(t, "app://s/{x}") // declared later: never reached
	skill := resource(t, "skill://pdf/SKILL.md")
	skill.files = map[string]bool{"skill://pdf/SKILL.md": true, "skill://pdf/ref.md": true}
	for _, e := range []*entry{tmpl, other, fixed, skill} {
		c = add(t, c, e)
	}
	for _, tc := range []struct {
		uri  string
		want *entry
		id   any
	}{
		{"app://s/special", fixed, nil},
		{"app://s/42", tmpl, "42"},
		{"skill://pdf/SKILL.md", skill, nil},
		{"skill://pdf/ref.md", skill, nil},
		{"skill://pdf/missing.md", nil, nil},
		{"app://other", nil, nil},
	} {
		got, vals := c.ResourceFor(tc.uri)
		if got != tc.want || vals["id"] != tc.id {
			t.Errorf("ResourceFor(%s) = %v %v, want %v id=%v", tc.uri, got, vals, tc.want, tc.id)
		}
	}
	if len(c.Skills) != 1 || !c.Declares(Resource, "skill://pdf/ref.md") || !c.Declares(Resource, "app://s/{id}") || !c.Declares(Resource, "app://s/7") {
		t.Error("Declares misses a resource")
	}
	if c.Declares(Resource, "app://none") || c.Declares(Tool, "app://s/7") || c.Declares(Prompt, "x") {
		t.Error("Declares finds what is not declared")
	}
}

func TestSnapshotsUnderConcurrentChange(t *testing.T) {
	var mu sync.Mutex
	cur := New[*entry]()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				mu.Lock()
				n, err := cur.Add(&entry{kind: Tool, name: string(rune('a'+i)) + strings.Repeat("x", j+1)})
				if err == nil {
					cur = n
				}
				mu.Unlock()
			}
		})
		wg.Go(func() {
			for range 50 {
				mu.Lock()
				snap := cur
				mu.Unlock()
				if len(snap.Tools) != len(snap.ByTool) {
					t.Error("a snapshot changed after it was published")
					return
				}
			}
		})
	}
	wg.Wait()
	if len(cur.Tools) != 160 {
		t.Errorf("%d tools, want 160", len(cur.Tools))
	}
}

func TestVisible(t *testing.T) {
	entries := []string{"a", "bb", "c", "dd"}
	tests := []struct {
		name string
		sees func(string) bool
		want []int
	}{
		{"all", func(string) bool { return true }, []int{1, 2, 1, 2}},
		{"none", func(string) bool { return false }, []int{}},
		{"some, in order", func(s string) bool { return len(s) == 2 }, []int{2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Visible(entries, tt.sees, func(s string) int { return len(s) })
			if got == nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Visible = %#v; want %v (never nil: lists encode as [])", got, tt.want)
			}
		})
	}
}

func TestSkillFor(t *testing.T) {
	skill := resource(t, "skill://pdf/SKILL.md")
	skill.files = map[string]bool{"skill://pdf/SKILL.md": true, "skill://pdf/ref.md": true}
	plain := resource(t, "skill://plain/SKILL.md") // a resource, not a skill
	c := add(t, add(t, New[*entry](), skill), plain)
	for uri, want := range map[string]*entry{
		"skill://pdf/SKILL.md": skill, "skill://pdf/ref.md": skill, "skill://pdf/any/thing": skill,
		"skill://plain/SKILL.md": nil, "skill://other/SKILL.md": nil, "file://pdf/SKILL.md": nil,
	} {
		if got, ok := c.SkillFor(uri); got != want || ok != (want != nil) {
			t.Errorf("SkillFor(%q) = %v, %v; want %v", uri, got, ok, want)
		}
	}
}
