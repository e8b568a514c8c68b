package specter

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/mcp"
)

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
	name, s, err := skills.Load(fsys)
	var d *declaration
	if err == nil {
		d = &declaration{kind: kindResource, name: s.Entry.URI, description: s.Description, mimeType: "text/markdown", skill: s}
		err = d.skillOptions(opts)
	}
	if err == nil {
		d.pattern, err = uripattern.Compile(d.name)
	}
	if err == nil {
		d.resource = &mcp.Resource{URI: d.name, Name: name, Title: d.title, Description: d.description,
			MIMEType: d.mimeType, Size: &s.Entry.Resources[0].Size, Icons: d.icons, Meta: d.meta}
		d.call = func(req *Request, _ *Context) Result {
			if f := s.Files[req.Name]; f != nil {
				return Reply(*f)
			}
			return Error(ResourceNotFound(req.Name)) // the catalog routes only the skill's own files here
		}
		err = r.add(d)
	}
	if err != nil {
		panic(&DeclarationError{Kind: "skill", Name: name, Err: err})
	}
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
