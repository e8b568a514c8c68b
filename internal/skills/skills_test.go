package skills

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
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

func TestLoadErrors(t *testing.T) {
	many := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: many\ndescription: d\n---\n")}}
	for i := range MaxFiles {
		many[fmt.Sprintf("f/%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	tests := []struct {
		name     string
		fsys     fs.FS
		wantName string
		want     string
	}{
		{"nil file system", nil, "", "the file system is nil"},
		{"no SKILL.md", fstest.MapFS{"README.md": {Data: []byte("hi")}}, "", "needs a SKILL.md"},
		{"no frontmatter", fstest.MapFS{"SKILL.md": {Data: []byte("# Title\nname: x\n")}}, "", "must begin with YAML frontmatter"},
		{"unclosed frontmatter", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: x\ndescription: y\n")}}, "", "must begin with YAML frontmatter"},
		{"bad YAML", skillFS("name: [x", nil), "", "frontmatter"},
		{"frontmatter not a mapping", skillFS("- a\n- b", nil), "", "must map keys to values"},
		{"repeated key", skillFS("name: a\nname: b\ndescription: d", nil), "", `key "name" appears twice`},
		{"no name", skillFS("description: d", nil), "", "needs a name"},
		{"name not a string", skillFS("name: 42\ndescription: d", nil), "", "needs a name"},
		{"upper case name", skillFS("name: PDF\ndescription: d", nil), "PDF", "lowercase letters"},
		{"double hyphen", skillFS("name: a--b\ndescription: d", nil), "a--b", "lowercase letters"},
		{"leading hyphen", skillFS("name: -a\ndescription: d", nil), "-a", "lowercase letters"},
		{"name too long", skillFS("name: "+strings.Repeat("a", 65)+"\ndescription: d", nil), strings.Repeat("a", 65), "lowercase letters"},
		{"no description", skillFS("name: nodesc", nil), "nodesc", "needs a description"},
		{"empty description", skillFS("name: nodesc\ndescription: ''", nil), "nodesc", "needs a description"},
		{"no JSON form", skillFS("name: inf\ndescription: d\nscore: .inf", nil), "inf", "no JSON form"},
		{"binary tag", skillFS("name: bin\ndescription: d\nx: !!binary aGk=", nil), "", "no JSON form"},
		{"alias bomb", skillFS("name: bomb\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]", nil), "", "aliases expand too far"},
		{"SKILL.md not UTF-8", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: latin\ndescription: caf\xe9\n---\n")}}, "", "not UTF-8"},
		{"too many files", many, "many", "at most 512 files"},
		{"too many bytes", skillFS("name: big\ndescription: d", map[string]string{"a.bin": strings.Repeat("x", 8<<20), "b.bin": strings.Repeat("y", 8<<20)}), "big", "at most 16777216 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, s, err := Load(tt.fsys)
			if err == nil || s != nil {
				t.Fatalf("Load = %v, %v; want an error", s, err)
			}
			if tt.wantName != "" && name != tt.wantName {
				t.Errorf("name %q, want %q", name, tt.wantName)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestLimitsAreInclusive(t *testing.T) {
	fsys := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: full\ndescription: d\n---\n")}}
	for i := range MaxFiles - 1 {
		fsys[fmt.Sprintf("f%03d", i)] = &fstest.MapFile{Data: []byte{}}
	}
	fsys["f000"].Data = make([]byte, MaxBytes-len(fsys["SKILL.md"].Data))
	_, s, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Entry.Resources); got != MaxFiles {
		t.Errorf("%d files, want %d", got, MaxFiles)
	}
}

func TestLoad(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00"
	name, s, err := Load(fstest.MapFS{
		"SKILL.md":                 {Data: []byte("\ufeff---\r\nname: kit\r\ndescription: A kit\r\nupdated: 2025-01-02\r\nmetadata:\r\n  v: 1.0\r\n  tags: &t [a, b]\r\n  again: *t\r\n  'on': yes\r\n---  \r\nBody\r\n")},
		"LICENSE":                  {Data: []byte("MIT")},
		"scripts/run.py":           {Data: []byte("print('hi')\n")},
		"assets/logo.png":          {Data: []byte(png)},
		"assets/blob":              {Data: []byte{0xff, 0x00}},
		"templates/my invoice.md":  {Data: []byte("# Invoice")},
		"templates/regional/eu.md": {Data: []byte("# EU")},
		"empty":                    {Mode: fs.ModeDir | 0o755},
	})
	if err != nil {
		t.Fatal(err)
	}
	if name != "kit" || s.Name != "kit" || s.Description != "A kit" || s.Entry.URI != "skill://kit/SKILL.md" {
		t.Errorf("name %q, skill %q %q %q", name, s.Name, s.Description, s.Entry.URI)
	}

	var fm map[string]any
	if err := json.Unmarshal(s.Entry.Frontmatter, &fm); err != nil {
		t.Fatal(err)
	}
	// As a YAML 1.2 reader sees it: the date stays text, "yes" stays a
	// string, aliases are expanded.
	want := map[string]any{"name": "kit", "description": "A kit", "updated": "2025-01-02",
		"metadata": map[string]any{"v": 1.0, "tags": []any{"a", "b"}, "again": []any{"a", "b"}, "on": "yes"}}
	if !reflect.DeepEqual(fm, want) {
		t.Errorf("frontmatter %s, want %v", s.Entry.Frontmatter, want)
	}

	var uris []string
	for _, res := range s.Entry.Resources {
		uris = append(uris, res.URI)
		c := s.Files[res.URI]
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
		if c := s.Files[uri]; c.MIMEType != want.mimeType || (c.Blob != nil) != want.blob {
			t.Errorf("%s: mimeType %q blob %v, want %q %v", uri, c.MIMEType, c.Blob != nil, want.mimeType, want.blob)
		}
	}

	children := func(uri string) []string {
		var out []string
		for _, c := range s.Dirs[uri] {
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
	if c := s.Dirs["skill://kit/empty"]; c == nil || len(c) != 0 {
		t.Errorf("empty directory: %v", c)
	}

}

func TestEntryURI(t *testing.T) {
	for uri, want := range map[string]string{
		"skill://ok/SKILL.md":          "skill://ok/SKILL.md",
		"skill://ok/references/a.md":   "skill://ok/SKILL.md",
		"skill://ok":                   "skill://ok/SKILL.md",
		"skill://":                     "skill:///SKILL.md",
		"app://ok/SKILL.md":            "",
		"SKILL://ok/SKILL.md":          "",
		"https://example.com/SKILL.md": "",
	} {
		if got := EntryURI(uri); got != want {
			t.Errorf("EntryURI(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "pdf-processing": true, "a1-b2": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false, "a.b": false, strings.Repeat("a", 65): false,
	} {
		if validName(name) != want {
			t.Errorf("validName(%q) = %v", name, !want)
		}
	}
}
