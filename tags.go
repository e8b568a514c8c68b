package specter

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/specter-mcp/specter/internal/access"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// MetaTags is the _meta key under which a tool, prompt, resource or
// template lists its tags on the wire, and under which a list request may
// name the tags it wants:
//
//	{"method": "tools/list", "params": {"_meta": {"io.github.specter-mcp/tags": ["github"]}}}
//
// lists only the tools with at least one of those tags. The protocol has
// no field for tags yet (SEP-1300 proposes one), so they travel in _meta,
// which every revision allows.
const MetaTags = "io.github.specter-mcp/tags"

// Tags tags a tool, prompt or resource, for toolsets: connect can allow or
// hide a caller's declarations by tag (Context.AllowTags, HideTags), a
// client can list by tag (MetaTags), and the search tool (ToolSearch)
// matches them. Tags are listed in the declaration's _meta.
func Tags(tags ...string) DeclOption {
	return declOption(func(d *declaration) { d.tags = append(d.tags, tags...) })
}

// AllowTags allows this caller only the declarations that carry at least
// one of tags, of every kind: a toolset. It narrows what AllowTools,
// AllowPrompts and AllowResources allowed before it; what they allow
// after it replaces it. The tags are resolved against the declarations of
// this moment, so call it in connect, which runs for every request.
func (c *Context) AllowTags(tags ...string) {
	g := c.writable()
	for _, k := range []kind{kindTool, kindPrompt, kindResource} {
		names := c.tagged(k, tags)
		lists := g.list(k)
		if lists.Allow != nil {
			maps.DeleteFunc(names, func(n string, _ struct{}) bool { _, ok := lists.Allow[n]; return !ok })
		}
		lists.Allow = names
	}
}

// HideTags hides from this caller the declarations that carry any of
// tags, in addition to those the Hide methods hide.
func (c *Context) HideTags(tags ...string) {
	g := c.writable()
	for _, k := range []kind{kindTool, kindPrompt, kindResource} {
		lists := g.list(k)
		hidden := c.tagged(k, tags)
		for n := range lists.Deny {
			hidden[n] = struct{}{}
		}
		lists.Deny = hidden
	}
}

// tagged returns the names of the declarations of kind k that carry one
// of tags.
func (c *Context) tagged(k kind, tags []string) map[string]struct{} {
	names := map[string]struct{}{}
	if c.r == nil {
		return names
	}
	cat := c.r.catalog.Load()
	all := map[kind][]*declaration{kindTool: cat.Tools, kindPrompt: cat.Prompts, kindResource: append(slices.Clip(cat.Resources), cat.Templates...)}[k]
	for _, d := range all {
		if hasTag(d.tags, tags) {
			names[d.name] = struct{}{}
		}
	}
	return names
}

func hasTag(have, want []string) bool {
	for _, t := range want {
		if slices.Contains(have, t) {
			return true
		}
	}
	return false
}

// list returns the allow and deny lists of kind k.
func (g *grant) list(k kind) *access.Names {
	switch k {
	case kindTool:
		return &g.tools
	case kindPrompt:
		return &g.prompts
	}
	return &g.resources
}

// tagMeta returns meta with the tags added under MetaTags.
func tagMeta(meta mcp.Meta, tags []string) mcp.Meta {
	if len(tags) == 0 {
		return meta
	}
	out := make(mcp.Meta, len(meta)+1)
	maps.Copy(out, meta)
	out[MetaTags] = slices.Clone(tags)
	return out
}

// listFilter returns the filter of a list request: the tags its _meta
// names under MetaTags, or, when it names none (or names them as anything
// but an array of strings), a filter that keeps everything.
func (x *exchange) listFilter() func(*declaration) bool {
	all := func(*declaration) bool { return true }
	meta := x.c.req.Meta
	if len(meta) == 0 || !bytes.Contains(meta, []byte(MetaTags)) {
		return all
	}
	var m struct {
		Tags []string `json:"io.github.specter-mcp/tags"`
	}
	if err := json.Unmarshal(meta, &m); err != nil || m.Tags == nil {
		return all
	}
	return func(d *declaration) bool { return hasTag(d.tags, m.Tags) }
}

// ToolSearch declares a tool, named name, that finds the caller's tools by
// words and tags, for servers with more tools than a model should read at
// once: hide most of them from the list (AllowTags in connect, say) and
// let the model search. Its params are query (words matched against each
// tool's name, title, description and tags; every word must match),
// tags (only tools with one of them) and limit (1 to 50, 10 by default).
// It answers {"tools": [...]} with each found tool as tools/list gives
// it, best match first. It finds only what the caller may see and call:
// a tool hidden by connect, scopes or a policy is never found. Hidden
// tools can still be called by name if connect allows them; hide them
// with HideTools or HideTags to keep them out of reach.
//
// The options add to, or override, the tool's own (a Description, Tags).
func (r *Router) ToolSearch(name string, opts ...Option) {
	base := []Option{
		Description("Search this server's tools by words and tags. Returns the matching tools with their input schemas; call one by its name."),
		ReadOnly(),
		params.String("query", params.Description("Words to look for in tool names, titles, descriptions and tags"), params.Validate("max=512")),
		params.Array("tags", params.String(""), params.Description("Only tools with one of these tags"), params.Validate("max=32,dive,max=64")),
		params.Integer("limit", params.Default(10), params.Validate("min=1,max=50"), params.Description("The most tools to return")),
	}
	r.Tool(name, func(p Params, _ *Request, c *Context) Result {
		return Reply(map[string]any{"tools": c.searchTools(name, p.String("query"), p.Strings("tags"), p.Int("limit"))})
	}, append(base, opts...)...)
}

// searchTools returns the tools the caller may use that match every word
// of query and one of tags (when given), best first, at most limit.
func (c *Context) searchTools(self, query string, tags []string, limit int) []*mcp.Tool {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		d     *declaration
		score int
	}
	var hits []hit
	for _, d := range c.r.catalog.Load().Tools {
		if d.name == self || !c.grant.allowsTool(d.name) {
			continue
		}
		if ok, _ := c.grant.permits(d); !ok || (len(tags) > 0 && !hasTag(d.tags, tags)) {
			continue
		}
		if score, ok := matchTool(d, words); ok {
			hits = append(hits, hit{d, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(a.d.name, b.d.name)
	})
	out := make([]*mcp.Tool, 0, min(len(hits), limit))
	for _, h := range hits[:min(len(hits), limit)] {
		out = append(out, h.d.tool)
	}
	return out
}

// matchTool scores d against words: a word in the name or a tag counts
// most, then the title, then the description. Every word must match.
func matchTool(d *declaration, words []string) (int, bool) {
	name, title, desc := strings.ToLower(d.name), strings.ToLower(d.title), strings.ToLower(d.description)
	total := 0
	for _, w := range words {
		score := 0
		if strings.Contains(name, w) {
			score += 4
		}
		for _, t := range d.tags {
			if strings.EqualFold(t, w) {
				score += 4
			}
		}
		if strings.Contains(title, w) {
			score += 2
		}
		if strings.Contains(desc, w) {
			score++
		}
		if score == 0 {
			return 0, false
		}
		total += score
	}
	return total, true
}
