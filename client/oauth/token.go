package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Token is an access token and what came with it.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	Expiry       time.Time `json:"-"`
}

// expired reports whether the token is past (or within a few seconds of)
// its expiry.
func (t *Token) expired() bool {
	return !t.Expiry.IsZero() && time.Now().Add(10*time.Second).After(t.Expiry)
}

// TokenError is an error response of a token endpoint (RFC 6749 §5.2).
type TokenError struct {
	Status      int
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *TokenError) Error() string {
	if e.Description != "" {
		return fmt.Sprintf("oauth: token endpoint: %s: %s (HTTP %d)", e.Code, e.Description, e.Status)
	}
	return fmt.Sprintf("oauth: token endpoint: %s (HTTP %d)", e.Code, e.Status)
}

// The client authentication methods at the token endpoint.
const (
	AuthNone          = "none"
	AuthBasic         = "client_secret_basic"
	AuthPost          = "client_secret_post"
	AuthPrivateKeyJWT = "private_key_jwt"
)

// Client is a client's registration with one authorization server.
type Client struct {
	ID     string
	Secret string
	// AuthMethod is how the client authenticates at the token endpoint;
	// empty chooses from the server's metadata.
	AuthMethod string
	// Key signs private_key_jwt assertions.
	Key *SigningKey
}

// authMethod picks the token endpoint authentication of a client.
func (c *Client) authMethod(m *ServerMetadata) string {
	if c.AuthMethod != "" {
		return c.AuthMethod
	}
	if c.Key != nil {
		return AuthPrivateKeyJWT
	}
	if c.Secret == "" {
		return AuthNone
	}
	supported := m.TokenEndpointAuthMethodsSupported
	if len(supported) == 0 || slices.Contains(supported, AuthBasic) {
		return AuthBasic // the RFC 8414 default
	}
	if slices.Contains(supported, AuthPost) {
		return AuthPost
	}
	return AuthBasic
}

// tokenRequest posts a grant to the token endpoint, authenticating the
// client, and returns the token. With DPoP, the proof is sent and a
// use_dpop_nonce answer is retried once with the server's nonce.
func (t *Transport) tokenRequest(ctx context.Context, m *ServerMetadata, client *Client, form url.Values) (*Token, error) {
	if m.TokenEndpoint == "" {
		return nil, errors.New("oauth: the authorization server's metadata names no token_endpoint")
	}
	switch method := client.authMethod(m); method {
	case AuthNone:
		form.Set("client_id", client.ID)
	case AuthPost:
		form.Set("client_id", client.ID)
		form.Set("client_secret", client.Secret)
	case AuthPrivateKeyJWT:
		assertion, err := client.Key.assertion(client.ID, issuerAudience(m))
		if err != nil {
			return nil, err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	case AuthBasic:
	default:
		return nil, fmt.Errorf("oauth: token endpoint authentication %q is not supported", method)
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.TokenEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if client.authMethod(m) == AuthBasic {
			// RFC 6749 §2.3.1: both parts are form-encoded first.
			req.SetBasicAuth(url.QueryEscape(client.ID), url.QueryEscape(client.Secret))
		}
		if t.dpop != nil {
			proof, err := t.dpop.proof(http.MethodPost, m.TokenEndpoint, "", t.nonce(m.TokenEndpoint))
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		res, err := t.http().Do(req)
		if err != nil {
			return nil, fmt.Errorf("oauth: token request: %w", err)
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("oauth: token request: %w", err)
		}
		if n := res.Header.Get("DPoP-Nonce"); n != "" {
			t.setNonce(m.TokenEndpoint, n)
		}
		if res.StatusCode != http.StatusOK {
			te := &TokenError{Status: res.StatusCode}
			_ = json.Unmarshal(body, te)
			if te.Code == "use_dpop_nonce" && t.dpop != nil && attempt == 0 {
				continue
			}
			if te.Code == "" {
				te.Code = "invalid_response"
			}
			return nil, te
		}
		var tok struct {
			Token
			ExpiresIn int64 `json:"expires_in"`
		}
		if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
			return nil, fmt.Errorf("oauth: the token endpoint's answer has no access_token")
		}
		if tok.ExpiresIn > 0 {
			tok.Expiry = time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
		}
		return &tok.Token, nil
	}
}

// issuerAudience is the audience of assertions for an authorization
// server: its issuer, or the origin of its token endpoint.
func issuerAudience(m *ServerMetadata) string {
	if m.Issuer != "" {
		return m.Issuer
	}
	u, err := url.Parse(m.TokenEndpoint)
	if err != nil {
		return m.TokenEndpoint
	}
	return u.Scheme + "://" + u.Host
}

// randomString returns n random bytes, base64url-encoded.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkce returns a PKCE verifier and its S256 challenge (RFC 7636).
func pkce() (verifier, challenge string) {
	verifier = randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}
