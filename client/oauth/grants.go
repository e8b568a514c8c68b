package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// A Grant obtains a token without taking a user through the authorization
// endpoint: ClientCredentials, JWTBearer, EnterpriseManaged or
// TokenExchange.
//
// A grant's credentials are bound to the authorization servers named in
// its Issuers, as pre-registered clients are (Config.Clients): when an MCP
// server's resource metadata names any other issuer, the Transport refuses
// it before anything is sent, since the metadata is the MCP server's word
// and the credentials are not its to direct.
type Grant interface {
	token(ctx context.Context, t *Transport, r *Request) (*Token, error)
	issuers() []string
}

// AnyIssuer in a grant's Issuers sends its credentials to whichever
// authorization server an MCP server names. It is for credentials worth no
// more than the servers' trust, such as a test harness's.
const AnyIssuer = "*"

// grantFor refuses a grant for an issuer outside the ones it is bound to.
func grantFor(g Grant, issuer string) error {
	bound := g.issuers()
	if slices.Contains(bound, issuer) || slices.Contains(bound, AnyIssuer) {
		return nil
	}
	if len(bound) == 0 {
		return fmt.Errorf("oauth: %T has no Issuers, so its credentials go to no authorization server; %s asked for them", g, issuer)
	}
	return fmt.Errorf("oauth: %T's credentials are for %s, not for the authorization server %s", g, strings.Join(bound, ", "), issuer)
}

// ClientCredentials is the client credentials grant, for a client acting
// on its own behalf; Client authenticates with a secret (basic or post)
// or a private key (private_key_jwt).
type ClientCredentials struct {
	Client Client
	// Issuers are the authorization servers (their issuer identifiers,
	// exactly as their metadata gives them) the credentials are for; no
	// other gets them.
	Issuers []string
}

func (g ClientCredentials) issuers() []string { return g.Issuers }

func (g ClientCredentials) token(ctx context.Context, t *Transport, r *Request) (*Token, error) {
	return t.tokenRequest(ctx, r.Server, &g.Client, grantForm("client_credentials", r))
}

// JWTBearer is the JWT bearer grant (RFC 7523 §2.1), as workload identity
// federation uses it: the workload's JWT from its platform is the
// assertion. Client names and, where the server wants it, authenticates
// the client. A refused assertion is reported, not retried.
type JWTBearer struct {
	Client Client
	// Issuers are the authorization servers the client and its assertions
	// are for; no other gets them.
	Issuers []string
	// Assertion returns the JWT for an authorization server (audience is
	// its issuer).
	Assertion func(ctx context.Context, audience string) (string, error)
}

func (g JWTBearer) issuers() []string { return g.Issuers }

// grantJWTBearer is the grant type of RFC 7523.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

func (g JWTBearer) token(ctx context.Context, t *Transport, r *Request) (*Token, error) {
	if g.Assertion == nil {
		return nil, errors.New("oauth: JWTBearer needs an Assertion")
	}
	assertion, err := g.Assertion(ctx, issuerAudience(r.Server))
	if err != nil {
		return nil, fmt.Errorf("oauth: JWT bearer assertion: %w", err)
	}
	form := grantForm(grantJWTBearer, r)
	form.Set("assertion", assertion)
	return t.tokenRequest(ctx, r.Server, &g.Client, form)
}

// EnterpriseManaged is enterprise-managed authorization: the user's ID
// token from the enterprise identity provider is exchanged there (RFC
// 8693) for an identity assertion grant (ID-JAG) for the MCP server's
// authorization server, which is then presented to that server with the
// JWT bearer grant.
type EnterpriseManaged struct {
	// Client is the client's registration with the MCP authorization
	// server.
	Client Client
	// Issuers are the MCP authorization servers the client and the
	// identity assertions are for; no other gets them, nor causes an
	// exchange at the identity provider.
	Issuers []string
	// IDToken returns the user's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
	// IdPTokenEndpoint is the identity provider's token endpoint, and
	// IdPClient the client's registration there.
	IdPTokenEndpoint string
	IdPClient        Client
}

// The token exchange of enterprise-managed authorization.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

func (g EnterpriseManaged) issuers() []string { return g.Issuers }

func (g EnterpriseManaged) token(ctx context.Context, t *Transport, r *Request) (*Token, error) {
	if g.IDToken == nil || g.IdPTokenEndpoint == "" {
		return nil, errors.New("oauth: EnterpriseManaged needs an IDToken and the identity provider's token endpoint")
	}
	idToken, err := g.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: ID token: %w", err)
	}
	exchange := url.Values{
		"grant_type":           {grantTokenExchange},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {issuerAudience(r.Server)},
		"resource":             {r.Resource},
	}
	if len(r.Scopes) > 0 {
		exchange.Set("scope", strings.Join(r.Scopes, " "))
	}
	idp := &ServerMetadata{TokenEndpoint: g.IdPTokenEndpoint}
	jag, err := t.exchange(ctx, idp, &g.IdPClient, exchange)
	if err != nil {
		return nil, err
	}
	form := grantForm(grantJWTBearer, r)
	form.Set("assertion", jag)
	return t.tokenRequest(ctx, r.Server, &g.Client, form)
}

// TokenExchange is OAuth 2.0 Token Exchange (RFC 8693) for an
// intermediary that acts for its own caller, such as an MCP gateway: the
// caller's access token is the subject token, exchanged at the MCP
// server's authorization server for an access token for that server (its
// resource indicator is both resource and audience). The caller's own
// token is never sent to the server. Client names and authenticates the
// intermediary at the authorization server.
type TokenExchange struct {
	Client Client
	// SubjectToken returns the token to exchange: the caller's.
	SubjectToken func(ctx context.Context) (string, error)
	// SubjectTokenType is the subject token's type; default
	// urn:ietf:params:oauth:token-type:access_token.
	SubjectTokenType string
	// Issuers are the authorization servers the subject token and the
	// client's credentials may go to (see Grant); AnyIssuer for any.
	Issuers []string
}

func (g TokenExchange) issuers() []string { return g.Issuers }

// tokenTypeAccessToken is RFC 8693's type of an OAuth access token.
const tokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"

func (g TokenExchange) token(ctx context.Context, t *Transport, r *Request) (*Token, error) {
	if g.SubjectToken == nil {
		return nil, errors.New("oauth: TokenExchange needs a SubjectToken")
	}
	subject, err := g.SubjectToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: subject token: %w", err)
	}
	if subject == "" {
		return nil, errors.New("oauth: token exchange without a subject token")
	}
	typ := g.SubjectTokenType
	if typ == "" {
		typ = tokenTypeAccessToken
	}
	form := grantForm(grantTokenExchange, r)
	form.Set("subject_token", subject)
	form.Set("subject_token_type", typ)
	form.Set("requested_token_type", tokenTypeAccessToken)
	if r.Resource != "" {
		form.Set("audience", r.Resource)
	}
	return t.tokenRequest(ctx, r.Server, &g.Client, form)
}

// exchange runs a token exchange and returns the issued token, which need
// not be an access token (an ID-JAG has token_type N_A).
func (t *Transport) exchange(ctx context.Context, m *ServerMetadata, client *Client, form url.Values) (string, error) {
	if client.ID != "" {
		form.Set("client_id", client.ID)
	}
	if client.Secret != "" {
		form.Set("client_secret", client.Secret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := t.http().Do(req)
	if err != nil {
		return "", fmt.Errorf("oauth: token exchange: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		te := &TokenError{Status: res.StatusCode}
		_ = json.Unmarshal(body, te)
		return "", te
	}
	var out struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.AccessToken == "" {
		return "", errors.New("oauth: token exchange: no token in the answer")
	}
	if out.IssuedTokenType != "" && out.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("oauth: token exchange issued a %s, not an ID-JAG", out.IssuedTokenType)
	}
	return out.AccessToken, nil
}

// grantForm starts the token request of a grant: its type, the resource
// and the scopes.
func grantForm(grantType string, r *Request) url.Values {
	form := url.Values{"grant_type": {grantType}}
	if r.Resource != "" {
		form.Set("resource", r.Resource)
	}
	if len(r.Scopes) > 0 {
		form.Set("scope", strings.Join(r.Scopes, " "))
	}
	return form
}
