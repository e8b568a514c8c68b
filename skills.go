package specter

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
	"reflect"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// SkillsExtension is the identifier of the MCP skills extension (SEP-2640).
const SkillsExtension = "io.modelcontextprotocol/skills"

// The limits of one skill that every conforming host accepts (SEP-2640).
const (
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

// skillName is the Agent Skills rule for names, without its ban on two
// hyphens in a row, which RE2 cannot say; validSkillName adds it.
var skillName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

func validSkillName(name string) bool {
	return skillName.MatchString(name) && !strings.Contains(name, "--")
}

// frontmatter finds the YAML frontmatter that opens a SKILL.md: the lines
// between a first line "---" and the next line "---". It reads the file
// as clients do, so that both see the same frontmatter.
var frontmatter = regexp.MustCompile(`\A---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|\z)`)

// maxFrontmatterValues bounds the values a frontmatter may expand to,
// so that YAML aliases cannot multiply without limit.
const maxFrontmatterValues = 10_000

// skill is a declared skill, read and checked once at registration and
// served from memory. Its declaration is the resource of its SKILL.md.
type skill struct {
	entry mcp.Skill                        // the entry of skills/list and skills/get
	files map[string]*mcp.ResourceContents // every file, by URI
	dirs  map[string][]*mcp.Resource       // the children of every directory, by URI
}

// Skill declares a skill (the skills extension, SEP-2640): fsys is the
// skill's directory, with a SKILL.md whose YAML frontmatter names and
// describes the skill, and any other files (references, scripts, assets).
// With embed, fs.Sub(files, "skills/pdf-processing") is such a directory.
//
// Every file becomes a resource skill://<name>/<path>, readable in both
// protocol eras; SKILL.md is also listed in resources/list. On the
// 2026-07-28 wire server/discover declares the extension, and skills/list,
// skills/get and resources/directory/read describe the skill, with the
// SHA-256 digest and size of every file.
//
// The files are read and checked once, here: SKILL.md must be UTF-8 and
// begin with frontmatter holding a description and a name of at most 64
// lowercase letters, digits and single hyphens, and a skill holds at most
// 512 files and 16 MiB. A mistake panics with a *DeclarationError naming
// the skill.
//
// Scopes, Policy, Cache, Title, Icons and Meta apply. Connect allows a
// skill with AllowResources("skill://<name>/SKILL.md"); a skill hidden from
// a caller is absent from its lists and unknown to skills/get and
// directory reads. RemoveResource with that URI removes the skill.
func (r *Router) Skill(fsys fs.FS, opts ...Option) {
	name, d, err := compileSkill(fsys, opts)
	if err == nil {
		err = r.add(d)
	}
	if err != nil {
		panic(&DeclarationError{Kind: "skill", Name: name, Err: err})
	}
}

// compileSkill reads the skill in fsys into its declaration. name is
// known as soon as the frontmatter is, to name the skill in errors.
func compileSkill(fsys fs.FS, opts []Option) (name string, d *declaration, err error) {
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
	fm, err := parseFrontmatter(md)
	if err != nil {
		return "", nil, fmt.Errorf("SKILL.md: %w", err)
	}
	name, _ = fm["name"].(string)
	description, _ := fm["description"].(string)
	switch {
	case name == "":
		return "", nil, errors.New("SKILL.md: the frontmatter needs a name")
	case !validSkillName(name):
		return name, nil, errors.New("SKILL.md: a name is 1 to 64 lowercase letters, digits and hyphens, with no hyphen at either end or next to another")
	case description == "":
		return name, nil, errors.New("SKILL.md: the frontmatter needs a description")
	}
	raw, err := json.Marshal(fm)
	if err != nil {
		return name, nil, fmt.Errorf("SKILL.md: the frontmatter has no JSON form: %w", err)
	}
	s, err := readSkill(fsys, name, md)
	if err != nil {
		return name, nil, err
	}
	s.entry.Frontmatter = raw
	d = &declaration{kind: kindResource, name: s.entry.URI, description: description, mimeType: "text/markdown", skill: s}
	if err := d.skillOptions(opts); err != nil {
		return name, nil, err
	}
	if d.pattern, err = uripattern.Compile(d.name); err != nil {
		return name, nil, err
	}
	d.resource = &mcp.Resource{URI: d.name, Name: name, Title: d.title, Description: d.description,
		MIMEType: d.mimeType, Size: &s.entry.Resources[0].Size, Icons: d.icons, Meta: d.meta}
	d.call = func(_ json.RawMessage, req *Request, _ *Context) Result {
		if f := s.files[req.Name]; f != nil {
			return Reply(*f)
		}
		// The catalog routes only the skill's own files here.
		return Error(ResourceNotFound(req.Name))
	}
	return name, d, nil
}

// skillOptions applies the options that make sense for a skill, whose
// name, description and MIME type come from SKILL.md, and refuses the
// rest.
func (d *declaration) skillOptions(opts []Option) error {
	probe := &declaration{}
	for _, o := range opts {
		switch o := o.(type) {
		case DeclOption:
			o.apply(probe)
		case SharedOption:
			o.decl(probe)
		case nil:
		default:
			return fmt.Errorf("%T is not a skill option", o)
		}
	}
	d.title, d.icons, d.meta, d.cache, d.scopes, d.policy = probe.title, probe.icons, probe.meta, probe.cache, probe.scopes, probe.policy
	probe.title, probe.icons, probe.meta, probe.cache, probe.scopes, probe.policy = "", nil, nil, nil, nil, nil
	// Whatever any other option set shows here, including options added
	// to the package later.
	if !reflect.DeepEqual(probe, &declaration{}) {
		return errors.New("only Scopes, Policy, Cache, Title, Icons and Meta apply to a skill; its name, description and MIME type come from SKILL.md")
	}
	return nil
}

// readSkill reads every file of the skill named name, whose SKILL.md is
// md: its contents, digest and size, and the directory tree.
func readSkill(fsys fs.FS, name string, md []byte) (*skill, error) {
	root := "skill://" + name
	s := &skill{
		entry: mcp.Skill{URI: root + "/SKILL.md"},
		files: map[string]*mcp.ResourceContents{},
		dirs:  map[string][]*mcp.Resource{root: {}},
	}
	var total int64
	add := func(p string, data []byte) error {
		if len(s.files) == maxSkillFiles {
			return fmt.Errorf("a skill holds at most %d files; hosts need not load a larger one", maxSkillFiles)
		}
		if total += int64(len(data)); total > maxSkillBytes {
			return fmt.Errorf("a skill holds at most %d bytes; hosts need not load a larger one", maxSkillBytes)
		}
		uri := root + "/" + escapePath(p)
		sum := sha256.Sum256(data)
		size := int64(len(data))
		s.entry.Resources = append(s.entry.Resources, mcp.SkillResource{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: size})
		mimeType := skillFileType(p, data)
		var c mcp.ResourceContents
		if utf8.Valid(data) {
			c = mcp.TextResource(uri, mimeType, string(data))
		} else {
			// Text would not carry these bytes unchanged, and the
			// digest covers the bytes.
			c = mcp.BlobResource(uri, mimeType, base64.StdEncoding.EncodeToString(data))
		}
		s.files[uri] = &c
		parent := parentURI(root, p)
		s.dirs[parent] = append(s.dirs[parent], &mcp.Resource{URI: uri, Name: path.Base(p), MIMEType: mimeType, Size: &size})
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
			s.dirs[uri] = []*mcp.Resource{}
			parent := parentURI(root, p)
			s.dirs[parent] = append(s.dirs[parent], &mcp.Resource{URI: uri, Name: e.Name(), MIMEType: mcp.MIMEDirectory})
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

// skillTypes are the MIME types of files common in skills that Go's own
// table lacks; the system's table, which varies, comes after them.
var skillTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".csv": "text/csv",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
}

// skillFileType returns the MIME type of a skill file: by its extension,
// or, for an unknown one, by whether the content is text.
func skillFileType(p string, data []byte) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := skillTypes[ext]; ok {
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

// parseFrontmatter returns the YAML frontmatter of a SKILL.md as the
// object its JSON form is.
func parseFrontmatter(md []byte) (map[string]any, error) {
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

// skillFor returns the declaration of the skill whose namespace holds a
// skill:// URI, or nil.
func skillFor(c *catalog.Catalog[*declaration], uri string) *declaration {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return nil
	}
	name, _, _ := strings.Cut(rest, "/")
	if d := c.ByURI["skill://"+name+"/SKILL.md"]; d != nil && d.skill != nil {
		return d
	}
	return nil
}

// Skills, Skill and ReadDirectory answer the methods of the skills
// extension, which exist only while at least one skill is declared.

func (x *exchange) Skills() ([]*mcp.Skill, error) {
	if len(x.cat.Skills) == 0 {
		return nil, x.noSkills()
	}
	out := make([]*mcp.Skill, 0, len(x.cat.Skills))
	for _, d := range x.cat.Skills {
		if x.c.scope.allowsResource(d, "") && x.visible(d) {
			out = append(out, &d.skill.entry)
		}
	}
	return out, nil
}

func (x *exchange) Skill(uri string) (*mcp.Skill, error) {
	s, err := x.visibleSkill(uri)
	if err != nil {
		return nil, err
	}
	if s == nil || s.entry.URI != uri {
		return nil, unknownURI("Unknown skill", uri)
	}
	return &s.entry, nil
}

func (x *exchange) ReadDirectory(uri string) ([]*mcp.Resource, error) {
	s, err := x.visibleSkill(uri)
	if err != nil {
		return nil, err
	}
	if s == nil || s.dirs[uri] == nil {
		return nil, unknownURI("Not a directory", uri)
	}
	return s.dirs[uri], nil
}

// visibleSkill returns the skill whose namespace holds uri, or nil when
// there is none or the caller may not see it: a hidden skill is unknown.
func (x *exchange) visibleSkill(uri string) (*skill, error) {
	if len(x.cat.Skills) == 0 {
		return nil, x.noSkills()
	}
	d := skillFor(x.cat, uri)
	if d == nil || !x.c.scope.allowsResource(d, "") || !x.visible(d) {
		return nil, nil
	}
	return d.skill, nil
}

func (x *exchange) noSkills() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (this server declares no skills)", x.c.req.Method)
}

// unknownURI is the -32602 error, with the URI in its data, for a URI a
// 2026-07-28 method does not serve.
func unknownURI(what, uri string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %s", what, uri).WithData(map[string]string{"uri": uri})
}
