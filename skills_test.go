package specter

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// skillFS is a skill directory with a SKILL.md of the given frontmatter
// and the given other files.
func skillFS(frontmatter string, files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"SKILL.md": {Data: []byte("---\n" + frontmatter + "\n---\n\n# Body\n")}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

const okFrontmatter = "name: ok\ndescription: A skill"

func TestSkillDeclarationErrors(t *testing.T) {
	r := newTestRouter()
	r.Skill(skillFS(okFrontmatter, nil))
	r.Resource("skill://taken/SKILL.md", nop, Description("a plain resource"))
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		opts     []Option
		wantName string
		want     string
	}{
		{"no SKILL.md", fstest.MapFS{"README.md": {Data: []byte("hi")}}, nil, "", "needs a SKILL.md"},
		{"upper case name", skillFS("name: PDF\ndescription: d", nil), nil, "PDF", "lowercase letters"},
		{"no description", skillFS("name: nodesc", nil), nil, "nodesc", "needs a description"},
		{"duplicate skill", skillFS(okFrontmatter, nil), nil, "ok", "a skill with this name, or a resource at skill://ok/SKILL.md, is already declared"},
		{"taken by a resource", skillFS("name: taken\ndescription: d", nil), nil, "taken", "already declared"},
		{"description option", skillFS("name: opt\ndescription: d", nil), []Option{Description("other")}, "opt", "only Scopes, Policy, Cache, Title, Icons and Meta"},
		{"MIME type option", skillFS("name: opt\ndescription: d", nil), []Option{MIMEType("text/plain")}, "opt", "only Scopes"},
		{"params field", skillFS("name: opt\ndescription: d", nil), []Option{params.String("x")}, "opt", "is not a skill option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := declErr(t, func() { r.Skill(tt.fsys, tt.opts...) })
			if err == nil {
				t.Fatal("no error")
			}
			if err.Kind != "skill" {
				t.Errorf("kind %q, want skill", err.Kind)
			}
			if tt.wantName != "" && err.Name != tt.wantName {
				t.Errorf("name %q, want %q", err.Name, tt.wantName)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
	if err := declErr(t, func() { r.Skill(nil) }); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("nil file system: %v", err)
	}
	if got := len(r.catalog.Load().Skills); got != 1 {
		t.Errorf("%d skills declared after the failures, want 1", got)
	}
}

func TestSkillEntry(t *testing.T) {
	r := newTestRouter()
	r.Skill(skillFS("name: kit\ndescription: A kit", map[string]string{"LICENSE": "MIT"}), Title("Kit"), Scopes("kit:read"), Cache(0, mcp.CachePrivate))
	d := r.catalog.Load().Skills[0]
	s := d.skill

	if res := d.resource; res.Name != "kit" || res.Description != "A kit" || res.MIMEType != "text/markdown" || res.Title != "Kit" ||
		res.Size == nil || *res.Size != s.Entry.Resources[0].Size {
		t.Errorf("SKILL.md resource %+v", res)
	}
	if !slices.Equal(d.scopes, []string{"kit:read"}) || d.cache == nil || d.cache.visibility != mcp.CachePrivate {
		t.Errorf("options not applied: scopes %v cache %v", d.scopes, d.cache)
	}
}

func TestSkillFilesResolveToTheirSkill(t *testing.T) {
	r := newTestRouter()
	r.Skill(skillFS(okFrontmatter, map[string]string{"references/a.md": "a"}))
	r.Resource("skill://{name}/other", nop, Description("a template in the same scheme"))
	c := r.catalog.Load()
	for uri, want := range map[string]bool{
		"skill://ok/SKILL.md":        true,
		"skill://ok/references/a.md": true,
		"skill://ok/references":      false, // a directory is no file
		"skill://ok/missing.md":      false,
		"skill://other/SKILL.md":     false,
		"skill://ok":                 false,
		"app://ok/SKILL.md":          false,
	} {
		d, _ := c.ResourceFor(uri)
		if got := d != nil && d.skill != nil; got != want {
			t.Errorf("resourceFor(%q) found a skill: %v, want %v", uri, got, want)
		}
	}
	if d, _ := c.ResourceFor("skill://x/other"); d == nil || d.template == nil {
		t.Error("a template in the skill scheme is no longer reachable")
	}
	if !r.RemoveResource("skill://ok/SKILL.md") {
		t.Fatal("RemoveResource did not find the skill")
	}
	c = r.catalog.Load()
	if d, _ := c.ResourceFor("skill://ok/references/a.md"); d != nil || len(c.Skills) != 0 || len(c.Resources) != 0 {
		t.Errorf("the skill outlived its removal: %d skills, %d resources", len(c.Skills), len(c.Resources))
	}
}
