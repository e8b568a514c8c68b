// The _meta.ui of declarations (MCP Apps): built from the UI options or
// from Meta, and checked against what the extension allows, at
// registration.

package specter

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/mcp"
)

// compileUI checks the MCP Apps metadata of a declaration, whether its
// options or its Meta set it, and writes it into the declaration's _meta,
// in a copy. It refuses what the extension forbids: a UI resource that
// is not a fixed ui:// URI with the MCP App MIME type, CSP sources that
// are not origins, CSP or permissions on a tool, unknown members, an
// unknown or empty visibility.
func (d *declaration) compileUI() error {
	u := d.ui
	if u == nil {
		u = &uiSpec{}
	}
	_, rawSet := d.meta[mcp.MetaUI]
	isUIResource := d.kind == kindResource && strings.HasPrefix(d.name, mcp.UIScheme)
	switch {
	case d.kind != kindTool && u.toolSet:
		return errors.New("UIResource and Visibility apply to tools")
	case !isUIResource && u.resourceSet:
		return fmt.Errorf("CSP, Permissions, Domain and PrefersBorder apply to UI resources (%s URIs, Router.UI)", mcp.UIScheme)
	case (u.toolSet || u.resourceSet) && rawSet:
		return errors.New(`set _meta.ui with the UI options or with Meta, not both`)
	}
	switch {
	case d.kind == kindTool:
		return d.compileToolUI(u, rawSet)
	case isUIResource:
		return d.compileResourceUI(u, rawSet)
	case rawSet && d.kind == kindResource:
		return fmt.Errorf("_meta.ui describes UI resources, whose URIs begin with %s", mcp.UIScheme)
	}
	return nil
}

func (d *declaration) compileToolUI(u *uiSpec, rawSet bool) error {
	legacy, hasLegacy := d.meta[mcp.MetaUIResourceURI]
	if !u.toolSet && !rawSet && !hasLegacy {
		return nil
	}
	m := u.tool
	if u.toolSet && m.ResourceURI == "" && m.Visibility == nil {
		return errors.New("UIResource needs the ui:// URI of a UI resource")
	}
	if rawSet {
		raw, err := json.Marshal(d.meta[mcp.MetaUI])
		if err != nil {
			return fmt.Errorf("_meta.ui: %w", err)
		}
		if err := checkToolUI(raw); err != nil {
			return err
		}
		_ = json.Unmarshal(raw, &m) // checked above
	}
	if hasLegacy {
		s, ok := legacy.(string)
		switch {
		case !ok:
			return fmt.Errorf(`_meta["%s"] is a string`, mcp.MetaUIResourceURI)
		case m.ResourceURI != "" && m.ResourceURI != s:
			return fmt.Errorf(`_meta["%s"] (%s) and _meta.ui.resourceUri (%s) differ`, mcp.MetaUIResourceURI, s, m.ResourceURI)
		}
		m.ResourceURI = s
	}
	if m.ResourceURI != "" {
		if err := checkUIURI(m.ResourceURI); err != nil {
			return fmt.Errorf("_meta.ui.resourceUri: %w", err)
		}
	}
	if m.Visibility != nil {
		if len(m.Visibility) == 0 {
			return errors.New("_meta.ui.visibility is empty: nobody could use the tool; name model, app or both")
		}
		for i, v := range m.Visibility {
			if v != mcp.VisibilityModel && v != mcp.VisibilityApp {
				return fmt.Errorf("_meta.ui.visibility: %q is neither %q nor %q", v, mcp.VisibilityModel, mcp.VisibilityApp)
			}
			if slices.Contains(m.Visibility[:i], v) {
				return fmt.Errorf("_meta.ui.visibility names %q twice", v)
			}
		}
	}
	meta := maps.Clone(d.meta)
	if meta == nil {
		meta = mcp.Meta{}
	}
	meta[mcp.MetaUI] = m
	if m.ResourceURI != "" {
		meta[mcp.MetaUIResourceURI] = m.ResourceURI
	}
	d.meta = meta
	return nil
}

func (d *declaration) compileResourceUI(u *uiSpec, rawSet bool) error {
	if err := checkUIURI(d.name); err != nil {
		return err
	}
	if d.mimeType != mcp.MIMETypeApp {
		return fmt.Errorf("a UI resource's MIME type is %s, not %q", mcp.MIMETypeApp, d.mimeType)
	}
	if d.list != nil {
		return errors.New("a UI resource has a fixed URI; List applies to templates")
	}
	if !rawSet && !u.resourceSet {
		return nil
	}
	m := u.resource
	if rawSet {
		raw, err := json.Marshal(d.meta[mcp.MetaUI])
		if err != nil {
			return fmt.Errorf("_meta.ui: %w", err)
		}
		if err := checkResourceUI(raw); err != nil {
			return err
		}
		_ = json.Unmarshal(raw, &m) // checked above
	}
	if err := checkResourceMeta(&m); err != nil {
		return err
	}
	meta := maps.Clone(d.meta)
	if meta == nil {
		meta = mcp.Meta{}
	}
	meta[mcp.MetaUI] = m
	d.meta = meta
	if d.ui == nil {
		d.ui = &uiSpec{}
	}
	d.ui.resource, d.ui.resourceSet = m, true // the reads' _meta.ui
	return nil
}

// checkUIURI checks that uri is a fixed ui:// URI: not a template, in
// either syntax.
func checkUIURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("%q is not a URI: %w", uri, err)
	}
	if !strings.HasPrefix(uri, mcp.UIScheme) || u.Host == "" && u.Path == "" {
		return fmt.Errorf("%q is not a ui:// URI", uri)
	}
	p, err := uripattern.Compile(uri)
	if err != nil {
		return fmt.Errorf("%q: %w", uri, err)
	}
	if p.IsTemplate() {
		return fmt.Errorf("%q is a template; a UI resource has one fixed URI", uri)
	}
	return nil
}

// checkResourceMeta checks the values of a UI resource's _meta.ui.
func checkResourceMeta(m *mcp.UIResourceMeta) error {
	if m.CSP != nil {
		for _, list := range []struct {
			name    string
			origins []string
		}{
			{"connectDomains", m.CSP.ConnectDomains}, {"resourceDomains", m.CSP.ResourceDomains},
			{"frameDomains", m.CSP.FrameDomains}, {"baseUriDomains", m.CSP.BaseURIDomains},
		} {
			for _, o := range list.origins {
				if err := checkOrigin(o); err != nil {
					return fmt.Errorf("_meta.ui.csp.%s: %w", list.name, err)
				}
			}
		}
	}
	if m.Domain != "" && !hostname.MatchString(m.Domain) {
		return fmt.Errorf("_meta.ui.domain %q is not a domain name (no scheme, port or path)", m.Domain)
	}
	return nil
}

// hostname matches a DNS name: dot-separated labels of letters, digits
// and inner hyphens.
var hostname = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// checkOrigin checks one CSP source of _meta.ui.csp: hosts join them into
// a Content Security Policy, so anything but an origin (a keyword, a
// path, a separator) would change the policy they build.
func checkOrigin(s string) error {
	if strings.ContainsAny(s, " \t\r\n;,'\"") {
		return fmt.Errorf("%q: an origin has no whitespace, ';', ',' or quotes", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not an origin: %w", s, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("%q is not an origin: it must be scheme://host[:port] with scheme http, https, ws or wss", s)
	}
	if u.Host == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return fmt.Errorf("%q is not an origin: it must be scheme://host[:port], without user, path, query or fragment", s)
	}
	host := u.Hostname()
	if net.ParseIP(host) == nil && !hostname.MatchString(strings.TrimPrefix(host, "*.")) {
		return fmt.Errorf("%q is not an origin: %q is not a host name (a wildcard is one leading \"*.\")", s, host)
	}
	return nil
}

// checkToolUI checks a tool's _meta.ui as JSON: only resourceUri and
// visibility are defined; csp and permissions belong on the UI resource.
func checkToolUI(raw json.RawMessage) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return errors.New("_meta.ui is an object")
	}
	for k, v := range m {
		switch {
		case k == "resourceUri" && !decodes[string](v):
			return errors.New("_meta.ui.resourceUri is a string")
		case k == "visibility" && !decodes[[]string](v):
			return errors.New(`_meta.ui.visibility is an array of "model" and "app"`)
		case k == "csp" || k == "permissions":
			return fmt.Errorf("_meta.ui.%s belongs on the UI resource (Router.UI), not on the tool", k)
		case k != "resourceUri" && k != "visibility":
			return fmt.Errorf("_meta.ui.%s is not defined for tools: only resourceUri and visibility are", k)
		}
	}
	return nil
}

// checkResourceUI checks a UI resource's _meta.ui as JSON against the
// members the extension defines.
func checkResourceUI(raw json.RawMessage) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return errors.New("_meta.ui is an object")
	}
	for k, v := range m {
		var err error
		switch k {
		case "csp":
			err = checkMembers(v, "_meta.ui.csp", decodes[[]string], "connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
		case "permissions":
			err = checkMembers(v, "_meta.ui.permissions", func(p json.RawMessage) bool {
				var o map[string]json.RawMessage
				return json.Unmarshal(p, &o) == nil && o != nil && len(o) == 0
			}, "camera", "microphone", "geolocation", "clipboardWrite")
		case "domain":
			if !decodes[string](v) {
				err = errors.New("_meta.ui.domain is a string")
			}
		case "prefersBorder":
			if !decodes[bool](v) {
				err = errors.New("_meta.ui.prefersBorder is a boolean")
			}
		default:
			err = fmt.Errorf("_meta.ui.%s is not defined for UI resources: csp, permissions, domain and prefersBorder are", k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkMembers checks that raw is an object whose members are among
// names and whose values ok accepts.
func checkMembers(raw json.RawMessage, path string, ok func(json.RawMessage) bool, names ...string) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return fmt.Errorf("%s is an object", path)
	}
	for k, v := range m {
		if !slices.Contains(names, k) {
			return fmt.Errorf("%s.%s is not defined: %s are", path, k, strings.Join(names, ", "))
		}
		if !ok(v) {
			return fmt.Errorf("%s.%s has an invalid value (CSP sources are arrays of origins; a permission is an empty object)", path, k)
		}
	}
	return nil
}

// decodes reports whether raw is JSON of type T.
func decodes[T any](raw json.RawMessage) bool {
	var v T
	return json.Unmarshal(raw, &v) == nil
}
