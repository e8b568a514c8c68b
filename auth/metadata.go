package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// WellKnownPath is the well-known URI suffix of protected resource
// metadata (RFC 9728 §3).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Metadata is the OAuth 2.0 Protected Resource Metadata of an MCP server
// (RFC 9728 §2): how a client finds the authorization server that issues
// tokens for it. Fields left empty are omitted from the document.
type Metadata struct {
	// Resource is the server's resource identifier: the MCP endpoint's
	// URL, and the Audience its tokens must carry. An absolute https URL
	// (http only on loopback hosts) without fragment. Required.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer URLs of the authorization
	// servers whose tokens the server accepts. The MCP specification
	// requires at least one.
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported are the scopes the server understands.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways a token may be sent. Only
	// "header" is accepted (the MCP specification allows no other); nil
	// means ["header"].
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	// ResourceName is a human-readable name of the server.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is the URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// ResourcePolicyURI is the URL of the data usage policy.
	ResourcePolicyURI string `json:"resource_policy_uri,omitempty"`
	// ResourceTOSURI is the URL of the terms of service.
	ResourceTOSURI string `json:"resource_tos_uri,omitempty"`
}

// Validate reports every mistake in m at once.
func (m Metadata) Validate() error {
	var errs []error
	if m.Resource == "" {
		errs = append(errs, errors.New("resource is required"))
	} else if err := checkURL(m.Resource); err != nil {
		errs = append(errs, fmt.Errorf("resource: %w", err))
	}
	if err := errors.Join(append(errs, m.problems(true)...)...); err != nil {
		return fmt.Errorf("auth: invalid Metadata: %w", err)
	}
	return nil
}

// problems returns the mistakes in every field of m but Resource; those
// of AuthorizationServers only when servers is set (a Config whose list
// defaults to its Issuer reports the Issuer instead).
func (m Metadata) problems(servers bool) []error {
	var errs []error
	if servers {
		if len(m.AuthorizationServers) == 0 {
			errs = append(errs, errors.New("authorization_servers needs at least one issuer URL"))
		}
		for _, s := range m.AuthorizationServers {
			if err := checkURL(s); err != nil {
				errs = append(errs, fmt.Errorf("authorization_servers: %w", err))
			}
		}
	}
	for _, s := range m.ScopesSupported {
		if !validScope(s) {
			errs = append(errs, fmt.Errorf("scopes_supported: %q is not a valid scope token", s))
		}
	}
	if slices.ContainsFunc(m.BearerMethodsSupported, func(s string) bool { return s != "header" }) {
		errs = append(errs, fmt.Errorf(`bearer_methods_supported: %v: only "header" is supported`, m.BearerMethodsSupported))
	}
	for _, f := range [...]struct{ name, url string }{
		{"resource_documentation", m.ResourceDocumentation},
		{"resource_policy_uri", m.ResourcePolicyURI},
		{"resource_tos_uri", m.ResourceTOSURI},
	} {
		if u, err := url.Parse(f.url); f.url != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "") {
			errs = append(errs, fmt.Errorf("%s: %q is not an absolute http(s) URL", f.name, f.url))
		}
	}
	return errs
}

// MetadataHandler serves m as a JSON document to GET and HEAD requests
// (405 for other methods), cacheable for an hour and readable by browser
// clients on other origins. It panics if m is invalid (see Validate).
func MetadataHandler(m Metadata) http.Handler {
	if err := m.Validate(); err != nil {
		panic(err)
	}
	if m.BearerMethodsSupported == nil {
		m.BearerMethodsSupported = []string{"header"}
	}
	body, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Errorf("auth: encoding Metadata: %w", err)) // unreachable: only strings and slices of strings
	}
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		h.Set("Cache-Control", "public, max-age=3600")
		// The document is public; clients running in browsers fetch it
		// from another origin.
		h.Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}

// Metadata returns the protected resource metadata document cfg states:
// its Resource, AuthorizationServers (by default its Issuer), Scopes,
// ResourceName and ResourceDocumentation.
func (cfg Config) Metadata() Metadata {
	servers := cfg.AuthorizationServers
	if servers == nil && cfg.Issuer != "" {
		servers = []string{cfg.Issuer}
	}
	return Metadata{
		Resource:              cfg.Resource,
		AuthorizationServers:  servers,
		ScopesSupported:       cfg.Scopes,
		ResourceName:          cfg.ResourceName,
		ResourceDocumentation: cfg.ResourceDocumentation,
	}
}

// MountMetadata serves cfg's metadata document (Config.Metadata) on e at
// both well-known URLs a client tries: the one derived from cfg.Resource
// (MetadataURL: for https://mcp.example.com/mcp, the path
// /.well-known/oauth-protected-resource/mcp), which every challenge
// names, and the root one (WellKnownPath). It panics if cfg is invalid,
// with the error NewVerifier returns, so that a misconfigured server does
// not start, or if cfg is InHouse, which has no such document. Serve the
// document with MetadataHandler instead when the paths differ, for example
// behind a proxy that rewrites them.
func MountMetadata(e *echo.Echo, cfg Config) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		panic(err)
	}
	if cfg.InHouse {
		panic("auth: MountMetadata: an InHouse Config has no protected resource metadata: its tokens come from the app, not an OAuth authorization server")
	}
	h := echo.WrapHandler(MetadataHandler(cfg.Metadata()))
	e.Any(WellKnownPath, h)
	u, _ := url.Parse(cfg.Resource) // validate parsed it
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		e.Any(WellKnownPath+p, h)
	}
}

// MetadataURL returns the URL of the protected resource metadata of
// resource (RFC 9728 §3.1): the well-known path inserted between the host
// and the resource's path, e.g. https://mcp.example.com/mcp →
// https://mcp.example.com/.well-known/oauth-protected-resource/mcp.
// resource must be an absolute https URL (http only on loopback hosts)
// without fragment.
func MetadataURL(resource string) (string, error) {
	if err := checkURL(resource); err != nil {
		return "", fmt.Errorf("auth: resource: %w", err)
	}
	u, _ := url.Parse(resource) // checkURL parsed it
	p := u.EscapedPath()
	if p == "/" {
		p = "" // §3.1: a terminating slash after the host is removed
	}
	s := u.Scheme + "://" + u.Host + WellKnownPath + p
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s, nil
}

// checkURL accepts an absolute https URL, or an http one on a loopback
// host (a development server), without user info or fragment: the form
// RFC 9728 and RFC 8414 require of resource and issuer identifiers.
func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", s)
	case u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return fmt.Errorf("%q is not an absolute https URL", s)
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return fmt.Errorf("%q must use https (http is allowed only on loopback hosts)", s)
	case u.User != nil:
		return errors.New("the URL must not contain user info") // which may be a password: not repeated
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%q must not have a fragment", s)
	}
	return nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
