// Package skills loads a skill of the MCP skills extension (SEP-2640)
// from a file system: SKILL.md and its YAML frontmatter, every file with
// its SHA-256 digest, size and MIME type, and the directory tree. A skill
// is read and checked once and then served from memory; this package
// knows nothing of the router that serves it.
package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/specter-mcp/specter/mcp"
)

// The limits of one skill that every conforming host accepts (SEP-2640).
const (
	MaxFiles = 512
	MaxBytes = 16 << 20
)

// nameRule is the Agent Skills rule for names, without its ban on two
// hyphens in a row, which RE2 cannot say; validName adds it.
var nameRule = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// validName reports whether name is a skill name.
func validName(name string) bool {
	return nameRule.MatchString(name) && !strings.Contains(name, "--")
}

// frontmatter finds the YAML frontmatter that opens a SKILL.md: the lines
// between a first line "---" and the next line "---". It reads the file
// as clients do, so that both see the same frontmatter.
var frontmatter = regexp.MustCompile(`\A---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|\z)`)

// maxFrontmatterValues bounds the values a frontmatter may expand to,
// so that YAML aliases cannot multiply without limit.
const maxFrontmatterValues = 10_000

// Skill is a loaded skill.
type Skill struct {
	Name        string                           // from the frontmatter
	Description string                           // from the frontmatter
	Entry       mcp.Skill                        // its entry in skills/list and skills/get; SKILL.md is Resources[0]
	Files       map[string]*mcp.ResourceContents // every file, by URI
	Dirs        map[string][]*mcp.Resource       // the children of every directory, by URI
}

// Load reads and checks the skill in fsys: SKILL.md at its root must be
// UTF-8 and begin with frontmatter holding a description and a name of at
// most 64 lowercase letters, digits and single hyphens; the skill holds at
// most 512 files and 16 MiB. Its files become skill://<name>/<path>.
// name is returned as soon as the frontmatter gives it, to name the skill
// in errors.
func Load(fsys fs.FS) (name string, s *Skill, err error) {
	if fsys == nil {
		return "", nil, errors.New("the file system is nil")
	}
	md, err := fs.ReadFile(fsys, "SKILL.md")
	if err != nil {
		return "", nil, fmt.Errorf("a skill needs a SKILL.md at its root: %w", err)
	}
	if !utf8.Valid(md) {
		return "", nil, errors.New("SKILL.md is not UTF-8 text")
	}
	fm, err := Frontmatter(md)
	if err != nil {
		return "", nil, fmt.Errorf("SKILL.md: %w", err)
	}
	name, _ = fm["name"].(string)
	description, _ := fm["description"].(string)
	switch {
	case name == "":
		return "", nil, errors.New("SKILL.md: the frontmatter needs a name")
	case !validName(name):
		return name, nil, errors.New("SKILL.md: a name is 1 to 64 lowercase letters, digits and hyphens, with no hyphen at either end or next to another")
	case description == "":
		return name, nil, errors.New("SKILL.md: the frontmatter needs a description")
	}
	raw, err := json.Marshal(fm)
	if err != nil {
		return name, nil, fmt.Errorf("SKILL.md: the frontmatter has no JSON form: %w", err)
	}
	if s, err = readSkill(fsys, name, md); err != nil {
		return name, nil, err
	}
	s.Name, s.Description, s.Entry.Frontmatter = name, description, raw
	return name, s, nil
}

// EntryURI returns the URI of the SKILL.md of the skill whose namespace
// (skill://<name>/) holds uri, or "" for a URI outside skill://.
func EntryURI(uri string) string {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return "skill://" + name + "/SKILL.md"
}

// readSkill reads every file of the skill named name, whose SKILL.md is
// md: its contents, digest and size, and the directory tree.
func readSkill(fsys fs.FS, name string, md []byte) (*Skill, error) {
	root := "skill://" + name
	s := &Skill{
		Entry: mcp.Skill{URI: root + "/SKILL.md"},
		Files: map[string]*mcp.ResourceContents{},
		Dirs:  map[string][]*mcp.Resource{root: {}},
	}
	var total int64
	add := func(p string, data []byte) error {
		if len(s.Files) == MaxFiles {
			return fmt.Errorf("a skill holds at most %d files; hosts need not load a larger one", MaxFiles)
		}
		if total += int64(len(data)); total > MaxBytes {
			return fmt.Errorf("a skill holds at most %d bytes; hosts need not load a larger one", MaxBytes)
		}
		uri := root + "/" + escapePath(p)
		size := int64(len(data))
		s.Entry.Resources = append(s.Entry.Resources, mcp.SkillResource{URI: uri, Digest: Digest(data), Size: size})
		mimeType := fileType(p, data)
		var c mcp.ResourceContents
		if utf8.Valid(data) {
			c = mcp.TextResource(uri, mimeType, string(data))
		} else {
			// Text would not carry these bytes unchanged, and the
			// digest covers the bytes.
			c = mcp.BlobResource(uri, mimeType, base64.StdEncoding.EncodeToString(data))
		}
		s.Files[uri] = &c
		parent := parentURI(root, p)
		s.Dirs[parent] = append(s.Dirs[parent], &mcp.Resource{URI: uri, Name: path.Base(p), MIMEType: mimeType, Size: &size})
		return nil
	}
	// SKILL.md comes first: it is the skill's own entry.
	if err := add("SKILL.md", md); err != nil {
		return nil, err
	}
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == "." || p == "SKILL.md":
			return nil
		case e.IsDir():
			uri := root + "/" + escapePath(p)
			s.Dirs[uri] = []*mcp.Resource{}
			parent := parentURI(root, p)
			s.Dirs[parent] = append(s.Dirs[parent], &mcp.Resource{URI: uri, Name: e.Name(), MIMEType: mcp.MIMEDirectory})
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return add(p, data)
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// escapePath escapes each segment of a slash-separated path for a URI.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// parentURI is the URI of the directory holding the file or directory p.
func parentURI(root, p string) string {
	if dir := path.Dir(p); dir != "." {
		return root + "/" + escapePath(dir)
	}
	return root
}

// extraTypes are the MIME types of files common in skills that Go's own
// table lacks; the system's table, which varies, comes after them.
var extraTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".csv": "text/csv",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
}

// fileType returns the MIME type of a skill file: by its extension,
// or, for an unknown one, by whether the content is text.
func fileType(p string, data []byte) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := extraTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// Digest is a file's digest as a skill's entry states it: "sha256:" and
// the lowercase hex SHA-256 of its bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Frontmatter returns the YAML frontmatter of a SKILL.md as the object
// its JSON form is, as a skill's entry carries it. Aliases are bounded,
// so that a hostile file cannot expand without end.
func Frontmatter(md []byte) (map[string]any, error) {
	m := frontmatter.FindSubmatch(bytes.TrimPrefix(md, []byte("\ufeff")))
	if m == nil {
		return nil, errors.New(`it must begin with YAML frontmatter between two "---" lines`)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(m[1], &doc); err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	budget := maxFrontmatterValues
	v, err := yamlValue(&doc, &budget)
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the frontmatter must map keys to values")
	}
	return obj, nil
}

// yamlValue converts a YAML node to the value whose JSON form is what a
// client's YAML 1.2 reader makes of it. Timestamps therefore stay the text
// as written: YAML 1.2 has no timestamp type. budget bounds the values
// visited, aliases included.
func yamlValue(n *yaml.Node, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("too many values (aliases expand too far)")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], budget)
	case yaml.AliasNode:
		return yamlValue(n.Alias, budget)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := yamlValue(c, budget)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key must be a plain value", k.Line)
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q appears twice", k.Line, k.Value)
			}
			v, err := yamlValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	}
	switch n.ShortTag() {
	case "!!str", "!!timestamp":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: the YAML tag %s has no JSON form", n.Line, n.Tag)
}
