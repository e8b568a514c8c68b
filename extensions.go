package specter

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/mcp"
)

// Extension declares that the server supports the MCP extension id, with
// its settings (any value that encodes to a JSON object; nil is {}): it
// appears in the extensions of the server's capabilities, in
// server/discover and in the initialize result. The router declares the
// extensions it implements itself (tasks, skills, UI) when a declaration
// uses them; Extension is for the ones an application implements, in its
// handlers or its middleware, and reads from the client with
// Context.ClientExtension.
//
// The id is a _meta key with its mandatory prefix, such as
// "com.example/audit". NewRouter panics on an id that is not one, one
// declared twice or by the router itself, and settings that are not an
// object.
func Extension(id string, settings any) RouterOption {
	return routerOption(func(r *Router) {
		raw, err := extensionSettings(id, settings)
		if err == nil && r.ext[id] != nil {
			err = fmt.Errorf("the extension %s is declared twice", id)
		}
		if err != nil {
			panic(fmt.Errorf("specter: Extension: %w", err))
		}
		if r.ext == nil {
			r.ext = map[string]json.RawMessage{}
		}
		r.ext[id] = raw
	})
}

// builtinExtensions are declared by the router when used.
var builtinExtensions = []string{mcp.ExtensionTasks, mcp.ExtensionSkills, mcp.ExtensionUI}

// extensionID is the _meta key format, with a mandatory prefix: dot-separated
// labels, a slash, and a name.
var extensionID = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?)*/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

func extensionSettings(id string, settings any) (json.RawMessage, error) {
	switch {
	case !extensionID.MatchString(id):
		return nil, fmt.Errorf("%q is not an extension identifier: a prefix of dot-separated labels, a slash and a name, such as com.example/audit", id)
	case slices.Contains(builtinExtensions, id):
		return nil, fmt.Errorf("the router declares %s itself when a declaration uses it", id)
	case settings == nil:
		return json.RawMessage(`{}`), nil
	}
	raw, err := json.Marshal(settings)
	if err != nil {
		return nil, fmt.Errorf("settings of %s: %w", id, err)
	}
	if !strings.HasPrefix(string(raw), "{") {
		return nil, fmt.Errorf("settings of %s encode to %s; they must be a JSON object", id, raw)
	}
	return raw, nil
}

// uiSettings are the server's settings of the UI extension: the UI MIME
// types its resources have, in the shape clients declare theirs.
var uiSettings = json.RawMessage(`{"mimeTypes":["` + mcp.MIMETypeApp + `"]}`)

// extensions are the extensions the server's capabilities declare: in
// server/discover (stateless) the tasks and skills extensions when used,
// in both eras the UI extension once a UI resource is declared, and those
// of Extension. Nil for none.
func (r *Router) extensions(cat *catalog.Catalog[*declaration], isStateless bool) map[string]json.RawMessage {
	m := stateless.Extensions(isStateless && hasTaskTools(cat), isStateless && len(cat.Skills) > 0)
	if len(r.ext) == 0 && !hasUIResources(cat) {
		return m
	}
	if m == nil {
		m = make(map[string]json.RawMessage, len(r.ext)+1)
	}
	maps.Copy(m, r.ext)
	if hasUIResources(cat) {
		m[mcp.ExtensionUI] = uiSettings
	}
	return m
}

// hasUIResources reports whether a UI resource (a ui:// URI) is declared.
func hasUIResources(cat *catalog.Catalog[*declaration]) bool {
	return slices.ContainsFunc(cat.Resources, func(d *declaration) bool {
		return d.mimeType == mcp.MIMETypeApp && strings.HasPrefix(d.name, mcp.UIScheme)
	})
}
