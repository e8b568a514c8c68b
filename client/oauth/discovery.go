package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Challenge is what a 401 or 403 response's WWW-Authenticate header says.
type Challenge struct {
	Scheme           string // "Bearer" or "DPoP"
	Error            string // e.g. "invalid_token", "insufficient_scope", "use_dpop_nonce"
	Scope            string // space-separated scopes the resource wants
	ResourceMetadata string // URL of the protected resource metadata
}

// ParseChallenge reads the first challenge of a WWW-Authenticate header
// value: a scheme, then comma-separated auth-params (RFC 9110 §11.6.1).
func ParseChallenge(header string) Challenge {
	var c Challenge
	s := strings.TrimSpace(header)
	scheme, rest, _ := strings.Cut(s, " ")
	c.Scheme = scheme
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		key = strings.ToLower(strings.TrimSpace(key))
		after = strings.TrimSpace(after)
		var value string
		if strings.HasPrefix(after, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(after) && after[i] != '"'; i++ {
				if after[i] == '\\' && i+1 < len(after) {
					i++
				}
				b.WriteByte(after[i])
			}
			value, rest = b.String(), after[min(i+1, len(after)):]
		} else {
			value, rest, _ = strings.Cut(after, ",")
			value = strings.TrimSpace(value)
			rest = "," + rest
		}
		rest = strings.TrimPrefix(strings.TrimSpace(rest), ",")
		switch key {
		case "error":
			c.Error = value
		case "scope":
			c.Scope = value
		case "resource_metadata":
			c.ResourceMetadata = value
		}
	}
	return c
}

// ResourceMetadata is a protected resource's metadata (RFC 9728).
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// ServerMetadata is an authorization server's metadata (RFC 8414, or
// OpenID Connect discovery).
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	DPoPSigningAlgValuesSupported     []string `json:"dpop_signing_alg_values_supported"`
}

// check refuses metadata naming an endpoint that is not https (or http on
// loopback): each is sent credentials, and the authorization endpoint is
// handed to the browser opener, where a javascript:, file: or data: URL
// would run or read whatever it says.
func (m *ServerMetadata) check() error {
	for _, e := range []struct{ name, url string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if err := checkURL(e.url); err != nil {
			return fmt.Errorf("oauth: the authorization server's %s: %w", e.name, err)
		}
	}
	return nil
}

// errNotFound marks a metadata URL that has no document.
var errNotFound = errors.New("no metadata there")

// getJSON fetches a metadata document.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if res.StatusCode != http.StatusOK || !strings.HasSuffix(mt, "json") {
		return fmt.Errorf("%s: HTTP %d: %w", u, res.StatusCode, errNotFound)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	return nil
}

// wellKnown inserts a well-known name between a URL's origin and path, as
// RFC 8414 and RFC 9728 do: https://h/a/b -> https://h/.well-known/name/a/b.
func wellKnown(u *url.URL, name string) string {
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + "/.well-known/" + name + path
}

// discoverResource finds the protected resource metadata of the server at
// server: from the challenge if it names it, else at the path-based and
// then the root well-known URL. It returns nil when there is none.
func discoverResource(ctx context.Context, hc *http.Client, server *url.URL, ch Challenge, crossOrigin bool) (*ResourceMetadata, error) {
	candidates := []string{wellKnown(server, "oauth-protected-resource")}
	if p := strings.Trim(server.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, server.Scheme+"://"+server.Host+"/.well-known/oauth-protected-resource")
	}
	if ch.ResourceMetadata != "" {
		// On the server's own origin the document is as safe as the server
		// itself; elsewhere it is a request to wherever the 401 says.
		u, err := url.Parse(ch.ResourceMetadata)
		if err != nil || !sameOrigin(u, server) {
			if !crossOrigin {
				return nil, fmt.Errorf("oauth: the challenge's resource_metadata %q is not on the MCP server's origin (Config.AllowCrossOriginMetadata)", ch.ResourceMetadata)
			}
			if err := checkURL(ch.ResourceMetadata); err != nil {
				return nil, fmt.Errorf("oauth: the challenge's resource_metadata: %w", err)
			}
		}
		candidates = []string{ch.ResourceMetadata}
	}
	for _, u := range candidates {
		var m ResourceMetadata
		err := getJSON(ctx, hc, u, &m)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("oauth: protected resource metadata: %w", err)
		}
		if err := checkResource(server, m.Resource); err != nil {
			return nil, err
		}
		return &m, nil
	}
	return nil, nil
}

// checkResource refuses metadata for another resource: the resource it
// names must be the server's URL or a parent of it on the same origin.
func checkResource(server *url.URL, resource string) error {
	r, err := url.Parse(resource)
	if err != nil || resource == "" {
		return fmt.Errorf("oauth: the protected resource metadata names no valid resource (%q)", resource)
	}
	same := strings.EqualFold(r.Scheme, server.Scheme) && strings.EqualFold(r.Host, server.Host)
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(server.Path, "/")
	if !same || (rp != sp && !strings.HasPrefix(sp, rp+"/")) {
		return fmt.Errorf("oauth: the protected resource metadata is for %s, not for %s", resource, server.Redacted())
	}
	return nil
}

// discoverServer fetches the metadata of the authorization server issuer,
// trying the RFC 8414 and OpenID Connect well-known URLs in the order the
// MCP specification gives, and checks that it is the issuer's own.
func discoverServer(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	if err := checkURL(issuer); err != nil {
		return nil, fmt.Errorf("oauth: the authorization server: %w", err)
	}
	u, _ := url.Parse(issuer)
	origin := u.Scheme + "://" + u.Host
	var candidates []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + p,
			origin + "/.well-known/openid-configuration" + p,
			origin + p + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	for _, c := range candidates {
		var m ServerMetadata
		err := getJSON(ctx, hc, c, &m)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("oauth: authorization server metadata: %w", err)
		}
		// RFC 8414 §3.3: the issuer must be exactly the one the URL was
		// built from, or the metadata may be an attacker's.
		if m.Issuer != issuer {
			return nil, fmt.Errorf("oauth: the metadata at %s is for issuer %q, not %q", c, m.Issuer, issuer)
		}
		if err := m.check(); err != nil {
			return nil, err
		}
		return &m, nil
	}
	return nil, nil
}
