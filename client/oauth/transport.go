package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config says how a Transport obtains tokens.
type Config struct {
	// HTTPClient makes the discovery, registration and token requests;
	// nil means http.DefaultClient. They follow redirects only within
	// the origin they were sent to.
	HTTPClient *http.Client
	// Timeout bounds each discovery, registration and token request, the
	// reading of its answer included; default 30 seconds, or the
	// HTTPClient's own Timeout when that is shorter.
	Timeout time.Duration

	// Redirect takes the user through the authorization endpoint, for the
	// authorization code grant. Tests use FollowRedirect.
	Redirect RedirectHandler
	// RedirectURL is the redirect_uri; default http://127.0.0.1/callback.
	RedirectURL string

	// ClientName is the client_name of dynamic registrations.
	ClientName string
	// ClientMetadataURL is the URL of this client's Client ID Metadata
	// Document. Authorization servers that support such documents get it
	// as the client_id instead of a registration.
	ClientMetadataURL string
	// Clients are pre-registered clients, by authorization server issuer.
	Clients map[string]Client

	// AllowCrossOriginMetadata lets a 401's resource_metadata name a URL
	// on another origin than the MCP server's. By default only the
	// server's own origin is asked, so that a server cannot aim the
	// client's requests at other hosts.
	AllowCrossOriginMetadata bool
	// CheckServer allows (nil) or refuses (an error) an authorization
	// server URL on behalf of the MCP server at mcpServer, before the
	// client sends it anything: the issuer, then each endpoint of its
	// metadata. Default DenyPrivateFromPublic.
	CheckServer func(ctx context.Context, mcpServer, target *url.URL) error

	// OfflineAccess asks for the offline_access scope, and so for refresh
	// tokens, from authorization servers that list it, with
	// prompt=consent, without which OpenID providers drop the scope.
	OfflineAccess bool
	// MaxStepUps bounds the re-authorizations for more scope (403
	// insufficient_scope) of one request; default 2.
	MaxStepUps int
	// DPoP binds tokens to a key of the client's (RFC 9449): proofs go
	// with token requests and, for DPoP tokens, with every request.
	DPoP bool

	// Grant obtains tokens without the authorization endpoint: client
	// credentials, a JWT bearer assertion, enterprise-managed
	// authorization. Nil uses the authorization code grant. A grant is
	// used only with the issuers it names.
	Grant Grant

	// Store keeps tokens and dynamic registrations beyond the
	// Transport's life, such as a FileStore for a command-line tool: a
	// held token is used (or refreshed) instead of a new authorization,
	// and one the server refuses is replaced. Nil keeps them in memory.
	Store Store
}

// Transport is an http.RoundTripper that authorizes requests to MCP
// servers (MCP authorization, OAuth 2.1). On a 401 it discovers the
// server's protected resource metadata (from WWW-Authenticate, else the
// well-known URLs), then its authorization server's metadata, registers
// the client if needed (pre-registered, Client ID Metadata Document or
// dynamic registration, per authorization server), obtains a token for
// the resource and sends the request again. A 403 insufficient_scope is
// answered by authorizing again for the union of scopes, a bounded
// number of times. Tokens are refreshed with their refresh token; when
// that fails, the request fails with the reason (and the next one
// authorizes afresh) rather than carry the expired token.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper

	cfg  Config
	hc   *http.Client // Config.HTTPClient, with the Timeout, following same-origin redirects only
	dpop *dpopKey

	authMu sync.Mutex // one authorization at a time

	mu      sync.Mutex
	grants  map[string]*grantState // by resource (server URL)
	clients map[string]*Client     // registrations, by issuer
	nonces  map[string]string      // DPoP nonces, by URL
}

// grantState is the token a resource was given and how.
type grantState struct {
	token    *Token
	scopes   []string
	meta     *ServerMetadata
	client   *Client
	issuer   string
	resource string
}

// defaultTimeout bounds each of the client's own requests.
const defaultTimeout = 30 * time.Second

// New returns a Transport for cfg.
func New(cfg Config) (*Transport, error) {
	if cfg.RedirectURL == "" {
		cfg.RedirectURL = "http://127.0.0.1/callback"
	}
	if cfg.MaxStepUps <= 0 {
		cfg.MaxStepUps = 2
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	t := &Transport{cfg: cfg, hc: sameOriginClient(hc, cfg.Timeout), grants: map[string]*grantState{}, clients: map[string]*Client{}, nonces: map[string]string{}}
	if cfg.DPoP {
		k, err := newDPoPKey()
		if err != nil {
			return nil, err
		}
		t.dpop = k
	}
	return t, nil
}

func (t *Transport) http() *http.Client { return t.hc }

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// Token returns the token held for the server at serverURL, if any.
func (t *Transport) Token(serverURL string) *Token {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if g := t.grants[resourceKey(u)]; g != nil {
		tok := *g.token
		return &tok
	}
	return nil
}

// resourceKey names a server by its URL without query or fragment.
func resourceKey(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// RoundTrip sends req with the server's token, authorizing first when the
// server asks for it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := bodyOf(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	key := resourceKey(req.URL)
	var refreshed, reauthorized, nonceRetried, storeTried bool
	stepUps := 0
	for {
		t.mu.Lock()
		g := t.grants[key]
		t.mu.Unlock()
		if g != nil && g.token.expired() && g.token.RefreshToken != "" && g.client != nil && !refreshed {
			refreshed = true
			if err := t.refresh(ctx, key, g); err != nil {
				// Never the expired token instead: the caller hears why,
				// and the next request authorizes afresh.
				t.forget(key, g)
				return nil, fmt.Errorf("oauth: refreshing the expired token for %s: %w", key, err)
			}
			continue
		}
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if g != nil {
			if err := t.present(r, g.token); err != nil {
				return nil, err
			}
		}
		res, err := t.base().RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if n := res.Header.Get("DPoP-Nonce"); n != "" && t.dpop != nil {
			t.setNonce(req.URL.String(), n)
		}
		switch res.StatusCode {
		case http.StatusUnauthorized:
			ch := ParseChallenge(res.Header.Get("WWW-Authenticate"))
			if ch.Error == "use_dpop_nonce" && t.dpop != nil && !nonceRetried && g != nil {
				nonceRetried = true
				drain(res)
				continue
			}
			if reauthorized {
				return res, nil
			}
			drain(res)
			if g != nil && g.token.RefreshToken != "" && !refreshed {
				refreshed = true
				if err := t.refresh(ctx, key, g); err == nil {
					continue
				}
			}
			// A token from the store that the server refuses is
			// replaced by a new authorization.
			stored, err := t.authorize(ctx, req.URL, ch, nil, !storeTried)
			if err != nil {
				return nil, err
			}
			storeTried = true
			reauthorized = !stored
		case http.StatusForbidden:
			ch := ParseChallenge(res.Header.Get("WWW-Authenticate"))
			if ch.Error != "insufficient_scope" || stepUps >= t.cfg.MaxStepUps {
				return res, nil
			}
			stepUps++
			drain(res)
			var scopes []string
			if g != nil {
				scopes = slices.Clone(g.scopes)
			}
			for _, s := range strings.Fields(ch.Scope) {
				if !slices.Contains(scopes, s) {
					scopes = append(scopes, s)
				}
			}
			if _, err := t.authorize(ctx, req.URL, ch, scopes, false); err != nil {
				return nil, err
			}
		default:
			return res, nil
		}
	}
}

// bodyOf reads a request's body once, so that it can be sent again, and
// closes it as a RoundTripper must.
func bodyOf(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the request body: %w", err)
	}
	return b, nil
}

func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	res.Body.Close()
}

// present puts the token on a request: Bearer, or DPoP with a fresh proof.
func (t *Transport) present(r *http.Request, tok *Token) error {
	if t.dpop != nil && strings.EqualFold(tok.TokenType, "DPoP") {
		proof, err := t.dpop.proof(r.Method, r.URL.String(), tok.AccessToken, t.nonce(r.URL.String()))
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
		return nil
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

func nonceKey(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return resourceKey(u)
}

func (t *Transport) nonce(target string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nonces[nonceKey(target)]
}

func (t *Transport) setNonce(target, nonce string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nonces[nonceKey(target)] = nonce
}

// Request is what a Grant needs to obtain a token.
type Request struct {
	// Server is the authorization server's metadata.
	Server *ServerMetadata
	// Resource is the resource indicator (RFC 8707) of the MCP server.
	Resource string
	// Scopes are the scopes to ask for.
	Scopes []string
}

// authorize obtains a token for the server at server: from the Store
// when fromStore and it holds a usable one (stored is then true), else
// from the authorization server.
func (t *Transport) authorize(ctx context.Context, server *url.URL, ch Challenge, scopes []string, fromStore bool) (stored bool, err error) {
	t.authMu.Lock()
	defer t.authMu.Unlock()
	hc := t.http()
	prm, err := discoverResource(ctx, hc, server, ch, t.cfg.AllowCrossOriginMetadata)
	if err != nil {
		return false, err
	}
	origin := server.Scheme + "://" + server.Host
	issuer, resource := origin, resourceKey(server)
	if prm != nil {
		if len(prm.AuthorizationServers) == 0 {
			return false, errors.New("oauth: the protected resource metadata names no authorization server")
		}
		issuer, resource = prm.AuthorizationServers[0], prm.Resource
	}
	if t.cfg.Grant != nil {
		// Before the authorization server is even asked for its metadata.
		if err := grantFor(t.cfg.Grant, issuer); err != nil {
			return false, err
		}
	}
	if err := t.checkServer(ctx, server, issuer); err != nil {
		return false, err
	}
	meta, err := discoverServer(ctx, hc, issuer)
	if err != nil {
		return false, err
	}
	if meta == nil {
		if prm != nil {
			return false, fmt.Errorf("oauth: authorization server %s publishes no metadata", issuer)
		}
		// 2025-03-26: no metadata anywhere; the endpoints are at fixed
		// paths of the server's origin.
		// That revision made PKCE with S256 mandatory for every server.
		meta = &ServerMetadata{
			AuthorizationEndpoint: origin + "/authorize", TokenEndpoint: origin + "/token", RegistrationEndpoint: origin + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
		if err := meta.check(); err != nil {
			return false, err
		}
	}
	if err := t.checkServer(ctx, server, meta.AuthorizationEndpoint, meta.TokenEndpoint, meta.RegistrationEndpoint); err != nil {
		return false, err
	}
	if scopes == nil {
		switch {
		case ch.Scope != "":
			scopes = strings.Fields(ch.Scope)
		case prm != nil && len(prm.ScopesSupported) > 0:
			scopes = slices.Clone(prm.ScopesSupported)
		}
	}
	if fromStore && t.cfg.Store != nil {
		g, err := t.stored(ctx, meta, issuer, resource)
		if err != nil || g != nil {
			if g != nil {
				t.mu.Lock()
				t.grants[resourceKey(server)] = g
				t.mu.Unlock()
			}
			return g != nil, err
		}
	}
	g := &grantState{meta: meta, issuer: issuer, resource: resource, scopes: scopes}
	req := &Request{Server: meta, Resource: resource, Scopes: scopes}
	if t.cfg.Grant != nil {
		g.token, err = t.cfg.Grant.token(ctx, t, req)
	} else {
		if t.cfg.OfflineAccess && slices.Contains(meta.ScopesSupported, "offline_access") && !slices.Contains(req.Scopes, "offline_access") {
			req.Scopes = append(slices.Clone(req.Scopes), "offline_access")
		}
		if g.client, err = t.client(ctx, meta, issuer); err == nil {
			g.token, err = t.authorizationCode(ctx, req, g.client)
		}
	}
	if err != nil {
		return false, err
	}
	t.mu.Lock()
	t.grants[resourceKey(server)] = g
	t.mu.Unlock()
	return false, t.save(ctx, g)
}

// stored returns the grant the Store holds for resource from issuer, its
// token refreshed if it has expired, or nil when there is none to use.
func (t *Transport) stored(ctx context.Context, meta *ServerMetadata, issuer, resource string) (*grantState, error) {
	tok, err := t.cfg.Store.LoadToken(ctx, issuer, resource)
	if err != nil || tok == nil {
		return nil, err
	}
	client, err := t.knownClient(ctx, issuer)
	if err != nil {
		return nil, err
	}
	g := &grantState{token: tok, scopes: strings.Fields(tok.Scope), meta: meta, client: client, issuer: issuer, resource: resource}
	if !tok.expired() {
		return g, nil
	}
	if tok.RefreshToken == "" || client == nil {
		return nil, nil
	}
	if g, err = t.renew(ctx, g); err != nil {
		return nil, nil // refused: authorize anew
	}
	return g, t.save(ctx, g)
}

// save keeps a grant's token in the Store, if there is one.
func (t *Transport) save(ctx context.Context, g *grantState) error {
	if t.cfg.Store == nil || g.issuer == "" {
		return nil
	}
	return t.cfg.Store.SaveToken(ctx, g.issuer, g.resource, g.token)
}

// refresh renews a grant's token with its refresh token, and keeps it.
func (t *Transport) refresh(ctx context.Context, key string, g *grantState) error {
	ng, err := t.renew(ctx, g)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.grants[key] = ng
	t.mu.Unlock()
	return t.save(ctx, ng)
}

// renew returns g with a token obtained with its refresh token.
func (t *Transport) renew(ctx context.Context, g *grantState) (*grantState, error) {
	client := g.client
	if client == nil {
		return nil, errors.New("oauth: no client to refresh with")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {g.token.RefreshToken}}
	if g.resource != "" {
		form.Set("resource", g.resource)
	}
	tok, err := t.tokenRequest(ctx, g.meta, client, form)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = g.token.RefreshToken
	}
	ng := *g
	ng.token = tok
	return &ng, nil
}

// forget drops the grant held for key, unless another took its place.
func (t *Transport) forget(key string, g *grantState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.grants[key] == g {
		delete(t.grants, key)
	}
}

// client returns the client's registration with an authorization server:
// pre-registered, held from before, its metadata document's URL, or a new
// dynamic registration. Registrations are never carried from one
// authorization server to another.
func (t *Transport) client(ctx context.Context, meta *ServerMetadata, issuer string) (*Client, error) {
	c, err := t.knownClient(ctx, issuer)
	if c != nil || err != nil {
		return c, err
	}
	switch {
	case meta.ClientIDMetadataDocumentSupported && t.cfg.ClientMetadataURL != "":
		c = &Client{ID: t.cfg.ClientMetadataURL, AuthMethod: AuthNone}
	case meta.RegistrationEndpoint != "":
		var err error
		if c, err = t.register(ctx, meta); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("oauth: no way to register with %s: no pre-registered client, no client metadata document, no registration endpoint", issuer)
	}
	t.mu.Lock()
	t.clients[issuer] = c
	t.mu.Unlock()
	if t.cfg.Store != nil && c.ID != t.cfg.ClientMetadataURL {
		if err := t.cfg.Store.SaveClient(ctx, issuer, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// knownClient returns the client's registration with issuer that needs
// no registering: pre-registered, held from before, or in the Store; nil
// when there is none.
func (t *Transport) knownClient(ctx context.Context, issuer string) (*Client, error) {
	if c, ok := t.cfg.Clients[issuer]; ok {
		return &c, nil
	}
	t.mu.Lock()
	c := t.clients[issuer]
	t.mu.Unlock()
	if c != nil || t.cfg.Store == nil {
		return c, nil
	}
	c, err := t.cfg.Store.LoadClient(ctx, issuer)
	if c != nil {
		t.mu.Lock()
		t.clients[issuer] = c
		t.mu.Unlock()
	}
	return c, err
}

// register registers the client dynamically (RFC 7591).
func (t *Transport) register(ctx context.Context, meta *ServerMetadata) (*Client, error) {
	method := AuthNone
	if s := meta.TokenEndpointAuthMethodsSupported; len(s) > 0 && !slices.Contains(s, AuthNone) {
		method = AuthBasic
		if !slices.Contains(s, AuthBasic) && slices.Contains(s, AuthPost) {
			method = AuthPost
		}
	}
	name := t.cfg.ClientName
	if name == "" {
		name = "Specter MCP client"
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{t.cfg.RedirectURL},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           applicationType(t.cfg.RedirectURL),
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := t.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: client registration: %w", err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return nil, fmt.Errorf("oauth: client registration: HTTP %d: %s", res.StatusCode, bytes.TrimSpace(data[:min(len(data), 200)]))
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &reg); err != nil || reg.ClientID == "" {
		return nil, errors.New("oauth: client registration: no client_id in the answer")
	}
	return &Client{ID: reg.ClientID, Secret: reg.ClientSecret, AuthMethod: reg.AuthMethod}, nil
}

// applicationType is "native" for loopback and custom-scheme redirects,
// "web" otherwise (OpenID Connect dynamic registration).
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "native"
	}
	if isLoopback(u.Hostname()) {
		return "native"
	}
	return "web"
}

// authorizationCode runs the authorization code grant with PKCE: the
// user goes through the authorization endpoint, the response is checked
// (state, and iss per RFC 9207), and the code is exchanged.
func (t *Transport) authorizationCode(ctx context.Context, r *Request, client *Client) (*Token, error) {
	meta := r.Server
	if t.cfg.Redirect == nil {
		return nil, errors.New("oauth: authorization needs a RedirectHandler")
	}
	if meta.AuthorizationEndpoint == "" {
		return nil, errors.New("oauth: the authorization server's metadata names no authorization_endpoint")
	}
	// MCP 2025-11-25: a server that does not advertise S256 (absent
	// included) cannot be relied on to check the verifier, so refuse.
	if !slices.Contains(meta.CodeChallengeMethodsSupported, "S256") {
		return nil, errors.New("oauth: the authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)")
	}
	verifier, challenge := pkce()
	state := randomString(16)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {client.ID},
		"redirect_uri":          {t.cfg.RedirectURL},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
		"state":                 {state},
	}
	if r.Resource != "" {
		q.Set("resource", r.Resource)
	}
	if len(r.Scopes) > 0 {
		q.Set("scope", strings.Join(r.Scopes, " "))
	}
	if slices.Contains(r.Scopes, "offline_access") {
		// OpenID Connect Core §11: offline_access is ignored unless the
		// request asks for consent; OAuth servers ignore the parameter.
		q.Set("prompt", "consent")
	}
	sep := "?"
	if strings.Contains(meta.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	cb, err := t.cfg.Redirect.Authorize(ctx, meta.AuthorizationEndpoint+sep+q.Encode())
	if err != nil {
		return nil, err
	}
	p := cb.Query()
	if e := p.Get("error"); e != "" {
		return nil, fmt.Errorf("oauth: authorization refused: %s %s", e, p.Get("error_description"))
	}
	if p.Get("state") != state {
		return nil, errors.New("oauth: the authorization response's state does not match")
	}
	// RFC 9207: a present iss must be the issuer, compared as a plain
	// string; a server that promised one must send it.
	if p.Has("iss") {
		if p.Get("iss") != meta.Issuer {
			return nil, fmt.Errorf("oauth: the authorization response comes from issuer %q, not %q", p.Get("iss"), meta.Issuer)
		}
	} else if meta.IssParameterSupported {
		return nil, errors.New("oauth: the authorization response has no iss, which its server promised")
	}
	code := p.Get("code")
	if code == "" {
		return nil, errors.New("oauth: the authorization response has no code")
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {t.cfg.RedirectURL},
		"code_verifier": {verifier},
	}
	if r.Resource != "" {
		form.Set("resource", r.Resource)
	}
	return t.tokenRequest(ctx, meta, client, form)
}
