// Package catalog compiles declarations (tools, prompts, resources) and
// keeps them in an immutable snapshot that request handling reads without
// locks; a change builds a new snapshot. It knows of a declaration only
// what the Entry interface tells, so the router's own declaration type,
// with its handler, stays in the router.
package catalog

import (
	"fmt"
	"maps"
	"slices"

	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/internal/uripattern"
)

// Entry is a compiled declaration as the catalog indexes it.
type Entry interface {
	comparable
	Kind() Kind
	// Name is a tool or prompt name, or a resource pattern as written.
	Name() string
	// Pattern is a resource's compiled pattern.
	Pattern() *uripattern.Pattern
	// IsSkill reports whether the entry is a skill, declared as the
	// resource of its SKILL.md.
	IsSkill() bool
	// Serves reports whether a skill serves uri as one of its files.
	Serves(uri string) bool
}

// Catalog is an immutable snapshot of declarations: its fields must not
// be changed. Lists keep the order of declaration.
type Catalog[E Entry] struct {
	Tools     []E
	Prompts   []E
	Resources []E // fixed URIs
	Templates []E
	Skills    []E // also among Resources, by their SKILL.md
	ByTool    map[string]E
	ByPrompt  map[string]E
	ByURI     map[string]E // fixed URIs and templates, by pattern as written and as RFC 6570
}

// New returns an empty catalog.
func New[E Entry]() *Catalog[E] {
	return &Catalog[E]{ByTool: map[string]E{}, ByPrompt: map[string]E{}, ByURI: map[string]E{}}
}

// Clone returns a copy of c that its owner may change with Insert before
// publishing it.
func (c *Catalog[E]) Clone() *Catalog[E] { return c.clone() }

func (c *Catalog[E]) clone() *Catalog[E] {
	n := &Catalog[E]{
		Tools: slices.Clone(c.Tools), Prompts: slices.Clone(c.Prompts),
		Resources: slices.Clone(c.Resources), Templates: slices.Clone(c.Templates), Skills: slices.Clone(c.Skills),
		ByTool: make(map[string]E, len(c.ByTool)+1), ByPrompt: make(map[string]E, len(c.ByPrompt)+1),
		ByURI: make(map[string]E, len(c.ByURI)+1),
	}
	maps.Copy(n.ByTool, c.ByTool)
	maps.Copy(n.ByPrompt, c.ByPrompt)
	maps.Copy(n.ByURI, c.ByURI)
	return n
}

// Add returns a catalog with e added. It fails when the name, URI or
// template is declared already.
func (c *Catalog[E]) Add(e E) (*Catalog[E], error) {
	n := c.clone()
	if err := n.Insert(e); err != nil {
		return nil, err
	}
	return n, nil
}

// Insert adds e to c itself, which must not be published yet (a Clone).
// It fails when the name, URI or template is declared already.
func (c *Catalog[E]) Insert(e E) error {
	n := c
	switch e.Kind() {
	case Tool:
		if _, dup := n.ByTool[e.Name()]; dup {
			return fmt.Errorf("a tool with this name is already declared")
		}
		n.Tools = append(n.Tools, e)
		n.ByTool[e.Name()] = e
	case Prompt:
		if _, dup := n.ByPrompt[e.Name()]; dup {
			return fmt.Errorf("a prompt with this name is already declared")
		}
		n.Prompts = append(n.Prompts, e)
		n.ByPrompt[e.Name()] = e
	default:
		key := e.Pattern().Template()
		if _, dup := n.ByURI[key]; dup {
			if e.IsSkill() {
				return fmt.Errorf("a skill with this name, or a resource at %s, is already declared", key)
			}
			return fmt.Errorf("a resource with this URI or template is already declared")
		}
		if e.IsSkill() {
			n.Skills = append(n.Skills, e)
		}
		if e.Pattern().IsTemplate() {
			n.Templates = append(n.Templates, e)
			n.ByURI[e.Name()] = e
		} else {
			n.Resources = append(n.Resources, e)
		}
		n.ByURI[key] = e
	}
	return nil
}

// Without returns c without the declaration of kind k named name when
// there is one and replaceable says it may go, and c otherwise.
func (c *Catalog[E]) Without(k Kind, name string, replaceable func(E) bool) *Catalog[E] {
	if e, ok := c.lookup(k, name); !ok || !replaceable(e) {
		return c
	}
	n, _ := c.Remove(k, name)
	return n
}

// lookup finds the declaration of kind k named name (a resource by its
// pattern, written either way).
func (c *Catalog[E]) lookup(k Kind, name string) (e E, ok bool) {
	switch k {
	case Tool:
		e, ok = c.ByTool[name]
	case Prompt:
		e, ok = c.ByPrompt[name]
	default:
		e, ok = c.ByPattern(name)
	}
	return e, ok
}

// Remove returns a catalog without the declaration of kind k named name
// (a resource by its pattern, written either way), and whether there was
// one.
func (c *Catalog[E]) Remove(k Kind, name string) (*Catalog[E], bool) {
	e, ok := c.lookup(k, name)
	if !ok {
		return c, false
	}
	n := c.clone()
	is := func(x E) bool { return x == e }
	switch k {
	case Tool:
		delete(n.ByTool, name)
		n.Tools = slices.DeleteFunc(n.Tools, is)
	case Prompt:
		delete(n.ByPrompt, name)
		n.Prompts = slices.DeleteFunc(n.Prompts, is)
	default:
		delete(n.ByURI, e.Name())
		delete(n.ByURI, e.Pattern().Template())
		n.Resources = slices.DeleteFunc(n.Resources, is)
		n.Templates = slices.DeleteFunc(n.Templates, is)
		n.Skills = slices.DeleteFunc(n.Skills, is)
	}
	return n, true
}

// ByPattern finds the resource declared as pattern, written as declared
// or in the other syntax (":id" or "{id}").
func (c *Catalog[E]) ByPattern(pattern string) (E, bool) {
	if e, ok := c.ByURI[pattern]; ok {
		return e, true
	}
	var zero E
	p, err := uripattern.Compile(pattern)
	if err != nil {
		return zero, false
	}
	e, ok := c.ByURI[p.Template()]
	return e, ok
}

// ResourceFor finds the declaration serving uri, with the template's
// values: a fixed URI first, then a skill's file, then the first
// template, in declaration order, that matches.
func (c *Catalog[E]) ResourceFor(uri string) (E, map[string]any) {
	if e, ok := c.ByURI[uri]; ok && !e.Pattern().IsTemplate() {
		return e, nil
	}
	for _, e := range c.Skills {
		if e.Serves(uri) {
			return e, nil
		}
	}
	for _, e := range c.Templates {
		if vals, ok := e.Pattern().Match(uri); ok {
			return e, vals
		}
	}
	var zero E
	return zero, nil
}

// Declares reports whether a declaration of kind k answers to name: a
// tool or prompt name, or a resource URI or pattern (either syntax).
func (c *Catalog[E]) Declares(k Kind, name string) bool {
	var zero E
	switch k {
	case Tool:
		_, ok := c.ByTool[name]
		return ok
	case Prompt:
		_, ok := c.ByPrompt[name]
		return ok
	}
	if _, ok := c.ByPattern(name); ok {
		return true
	}
	e, _ := c.ResourceFor(name)
	return e != zero
}

// Visible returns, in order, the wire form of every entry the caller may
// see: one filter for every list method.
func Visible[E, W any](entries []E, sees func(E) bool, wire func(E) W) []W {
	out := make([]W, 0, len(entries))
	for _, e := range entries {
		if sees(e) {
			out = append(out, wire(e))
		}
	}
	return out
}

// SkillFor returns the skill whose namespace holds a skill:// URI (its
// SKILL.md or any other file), and whether there is one.
func (c *Catalog[E]) SkillFor(uri string) (E, bool) {
	if e, ok := c.ByURI[skills.EntryURI(uri)]; ok && e.IsSkill() {
		return e, true
	}
	var zero E
	return zero, false
}
