package specter

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
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
	many := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: many\ndescription: d\n---\n")}}
	for i := range maxSkillFiles {
		many[fmt.Sprintf("f/%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		opts     []Option
		wantName string
		want     string
	}{
		{"no SKILL.md", fstest.MapFS{"README.md": {Data: []byte("hi")}}, nil, "", "needs a SKILL.md"},
		{"no frontmatter", fstest.MapFS{"SKILL.md": {Data: []byte("# Title\nname: x\n")}}, nil, "", "must begin with YAML frontmatter"},
		{"unclosed frontmatter", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: x\ndescription: y\n")}}, nil, "", "must begin with YAML frontmatter"},
		{"bad YAML", skillFS("name: [x", nil), nil, "", "frontmatter"},
		{"frontmatter not a mapping", skillFS("- a\n- b", nil), nil, "", "must map keys to values"},
		{"repeated key", skillFS("name: a\nname: b\ndescription: d", nil), nil, "", `key "name" appears twice`},
		{"no name", skillFS("description: d", nil), nil, "", "needs a name"},
		{"name not a string", skillFS("name: 42\ndescription: d", nil), nil, "", "needs a name"},
		{"upper case name", skillFS("name: PDF\ndescription: d", nil), nil, "PDF", "lowercase letters"},
		{"double hyphen", skillFS("name: a--b\ndescription: d", nil), nil, "a--b", "lowercase letters"},
		{"leading hyphen", skillFS("name: -a\ndescription: d", nil), nil, "-a", "lowercase letters"},
		{"name too long", skillFS("name: "+strings.Repeat("a", 65)+"\ndescription: d", nil), nil, strings.Repeat("a", 65), "lowercase letters"},
		{"no description", skillFS("name: nodesc", nil), nil, "nodesc", "needs a description"},
		{"empty description", skillFS("name: nodesc\ndescription: ''", nil), nil, "nodesc", "needs a description"},
		{"no JSON form", skillFS("name: inf\ndescription: d\nscore: .inf", nil), nil, "inf", "no JSON form"},
		{"binary tag", skillFS("name: bin\ndescription: d\nx: !!binary aGk=", nil), nil, "", "no JSON form"},
		{"alias bomb", skillFS("name: bomb\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]", nil), nil, "", "aliases expand too far"},
		{"SKILL.md not UTF-8", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: latin\ndescription: caf\xe9\n---\n")}}, nil, "", "not UTF-8"},
		{"duplicate skill", skillFS(okFrontmatter, nil), nil, "ok", "a skill with this name, or a resource at skill://ok/SKILL.md, is already declared"},
		{"taken by a resource", skillFS("name: taken\ndescription: d", nil), nil, "taken", "already declared"},
		{"too many files", many, nil, "many", "at most 512 files"},
		{"too many bytes", skillFS("name: big\ndescription: d", map[string]string{"a.bin": strings.Repeat("x", 8<<20), "b.bin": strings.Repeat("y", 8<<20)}), nil, "big", "at most 16777216 bytes"},
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

func TestSkillLimitsAreInclusive(t *testing.T) {
	fsys := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: full\ndescription: d\n---\n")}}
	for i := range maxSkillFiles - 1 {
		fsys[fmt.Sprintf("f%03d", i)] = &fstest.MapFile{Data: []byte{}}
	}
	fsys["f000"].Data = make([]byte, maxSkillBytes-len(fsys["SKILL.md"].Data))
	r := newTestRouter()
	r.Skill(fsys)
	if got := len(r.catalog.Load().Skills[0].skill.entry.Resources); got != maxSkillFiles {
		t.Errorf("%d files, want %d", got, maxSkillFiles)
	}
}

func TestSkillEntry(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00"
	r := newTestRouter()
	r.Skill(fstest.MapFS{
		"SKILL.md":                 {Data: []byte("\ufeff---\r\nname: kit\r\ndescription: A kit\r\nupdated: 2025-01-02\r\nmetadata:\r\n  v: 1.0\r\n  tags: &t [a, b]\r\n  again: *t\r\n  'on': yes\r\n---  \r\nBody\r\n")},
		"LICENSE":                  {Data: []byte("MIT")},
		"scripts/run.py":           {Data: []byte("print('hi')\n")},
		"assets/logo.png":          {Data: []byte(png)},
		"assets/blob":              {Data: []byte{0xff, 0x00}},
		"templates/my invoice.md":  {Data: []byte("# Invoice")},
		"templates/regional/eu.md": {Data: []byte("# EU")},
		"empty":                    {Mode: fs.ModeDir | 0o755},
	}, Title("Kit"), Scopes("kit:read"), Cache(0, mcp.CachePrivate))
	d := r.catalog.Load().Skills[0]
	s := d.skill

	var fm map[string]any
	if err := json.Unmarshal(s.entry.Frontmatter, &fm); err != nil {
		t.Fatal(err)
	}
	// As a YAML 1.2 reader sees it: the date stays text, "yes" stays a
	// string, aliases are expanded.
	want := map[string]any{"name": "kit", "description": "A kit", "updated": "2025-01-02",
		"metadata": map[string]any{"v": 1.0, "tags": []any{"a", "b"}, "again": []any{"a", "b"}, "on": "yes"}}
	if !reflect.DeepEqual(fm, want) {
		t.Errorf("frontmatter %s, want %v", s.entry.Frontmatter, want)
	}

	var uris []string
	for _, res := range s.entry.Resources {
		uris = append(uris, res.URI)
		c := s.files[res.URI]
		if c == nil {
			t.Fatalf("%s is listed but not served", res.URI)
		}
		var data []byte
		if c.Text != nil {
			data = []byte(*c.Text)
		} else {
			var err error
			if data, err = base64.StdEncoding.DecodeString(*c.Blob); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256(data)
		if res.Digest != "sha256:"+hex.EncodeToString(sum[:]) || res.Size != int64(len(data)) {
			t.Errorf("%s: digest %s size %d do not match the %d bytes served", res.URI, res.Digest, res.Size, len(data))
		}
	}
	wantURIs := []string{"skill://kit/SKILL.md", "skill://kit/LICENSE", "skill://kit/assets/blob", "skill://kit/assets/logo.png",
		"skill://kit/scripts/run.py", "skill://kit/templates/my%20invoice.md", "skill://kit/templates/regional/eu.md"}
	if !reflect.DeepEqual(uris, wantURIs) {
		t.Errorf("resources %v, want %v", uris, wantURIs)
	}
	for uri, want := range map[string]struct {
		mimeType string
		blob     bool
	}{
		"skill://kit/SKILL.md":        {"text/markdown", false},
		"skill://kit/LICENSE":         {"text/plain", false},
		"skill://kit/assets/blob":     {"application/octet-stream", true},
		"skill://kit/assets/logo.png": {"image/png", true},
		"skill://kit/scripts/run.py":  {"text/x-python", false},
	} {
		if c := s.files[uri]; c.MIMEType != want.mimeType || (c.Blob != nil) != want.blob {
			t.Errorf("%s: mimeType %q blob %v, want %q %v", uri, c.MIMEType, c.Blob != nil, want.mimeType, want.blob)
		}
	}

	children := func(uri string) []string {
		var out []string
		for _, c := range s.dirs[uri] {
			out = append(out, c.Name+"="+c.MIMEType)
		}
		return out
	}
	if got, want := children("skill://kit"), []string{"SKILL.md=text/markdown", "LICENSE=text/plain", "assets=inode/directory",
		"empty=inode/directory", "scripts=inode/directory", "templates=inode/directory"}; !reflect.DeepEqual(got, want) {
		t.Errorf("root children %v, want %v", got, want)
	}
	if got, want := children("skill://kit/templates"), []string{"my invoice.md=text/markdown", "regional=inode/directory"}; !reflect.DeepEqual(got, want) {
		t.Errorf("templates children %v, want %v", got, want)
	}
	if c := s.dirs["skill://kit/empty"]; c == nil || len(c) != 0 {
		t.Errorf("empty directory: %v", c)
	}

	if res := d.resource; res.Name != "kit" || res.Description != "A kit" || res.MIMEType != "text/markdown" || res.Title != "Kit" ||
		res.Size == nil || *res.Size != s.entry.Resources[0].Size {
		t.Errorf("SKILL.md resource %+v", res)
	}
	if !slices.Equal(d.scopes, []string{"kit:read"}) || d.cache == nil || d.cache.scope != mcp.CachePrivate {
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
