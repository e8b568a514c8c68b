package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
)

// authContext is the scenario data of the authorization scenarios.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
}

// clientMetadataURL is the Client ID Metadata Document URL the suite
// expects a client to use where the authorization server supports them.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// auth connects through the OAuth transport and uses the server's tool.
func (s *scenario) auth(ctx context.Context, url string) error {
	var data authContext
	if len(s.context) > 0 {
		if err := json.Unmarshal(s.context, &data); err != nil {
			return fmt.Errorf("scenario context: %w", err)
		}
	}
	cfg := oauth.Config{
		Redirect:          oauth.FollowRedirect{},
		RedirectURL:       "http://localhost:3000/callback",
		ClientName:        "specter-conformance-client",
		ClientMetadataURL: clientMetadataURL,
		OfflineAccess:     true,
	}
	// The suite names its authorization server to no one but its MCP
	// server, so the grants below trust whichever issuer that names.
	anyIssuer := []string{oauth.AnyIssuer}
	switch s.name {
	case "auth/pre-registration":
		cfg.Clients = map[string]oauth.Client{data.Issuer: {ID: data.ClientID, Secret: data.ClientSecret}}
	case "auth/client-credentials-basic":
		cfg.Grant = oauth.ClientCredentials{Client: oauth.Client{ID: data.ClientID, Secret: data.ClientSecret, AuthMethod: oauth.AuthBasic}, Issuers: anyIssuer}
	case "auth/client-credentials-jwt":
		key, err := oauth.ParseSigningKey([]byte(data.PrivateKeyPEM), data.SigningAlgorithm)
		if err != nil {
			return err
		}
		cfg.Grant = oauth.ClientCredentials{Client: oauth.Client{ID: data.ClientID, Key: key}, Issuers: anyIssuer}
	case "auth/enterprise-managed-authorization":
		cfg.Grant = oauth.EnterpriseManaged{
			Client:           oauth.Client{ID: data.ClientID, Secret: data.ClientSecret, AuthMethod: oauth.AuthBasic},
			Issuers:          anyIssuer,
			IDToken:          func(context.Context) (string, error) { return data.IdPIDToken, nil },
			IdPTokenEndpoint: data.IdPTokenEndpoint,
			IdPClient:        oauth.Client{ID: data.IdPClientID},
		}
	case "auth/wif-jwt-bearer":
		cfg.Grant = oauth.JWTBearer{
			Client:    oauth.Client{ID: data.ClientID, AuthMethod: oauth.AuthNone},
			Issuers:   anyIssuer,
			Assertion: func(context.Context, string) (string, error) { return data.ValidJWT, nil },
		}
	case "auth/dpop", "auth/dpop-nonce":
		cfg.DPoP = true
	}
	tr, err := oauth.New(cfg)
	if err != nil {
		return err
	}
	c, err := client.Connect(ctx, &client.HTTPTransport{URL: url, Client: &http.Client{Transport: tr}}, s.options())
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	tools, err := c.ListTools(ctx, "")
	if err != nil {
		return err
	}
	for _, t := range tools.Tools {
		if _, err := c.CallTool(ctx, t.Name, placeholders(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}
