package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SigningKey signs the client's JWT assertions (private_key_jwt, RFC
// 7523).
type SigningKey struct {
	Key crypto.Signer
	// Method is the JWS algorithm, e.g. jwt.SigningMethodES256.
	Method jwt.SigningMethod
	// KeyID, when set, goes in the "kid" header.
	KeyID string
}

// ParseSigningKey reads a PKCS #8 PEM private key for the JWS algorithm
// alg (ES256, ES384, ES512, RS256, PS256, EdDSA, ...).
func ParseSigningKey(pemData []byte, alg string) (*SigningKey, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in the private key")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("oauth: private key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, errors.New("oauth: the private key cannot sign")
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return nil, fmt.Errorf("oauth: unknown signing algorithm %q", alg)
	}
	return &SigningKey{Key: signer, Method: method}, nil
}

// assertion returns a client assertion: issuer and subject the client,
// for the audience, valid for five minutes.
func (k *SigningKey) assertion(clientID, audience string) (string, error) {
	now := time.Now()
	tok := jwt.NewWithClaims(k.Method, jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID:        randomString(16),
	})
	if k.KeyID != "" {
		tok.Header["kid"] = k.KeyID
	}
	s, err := tok.SignedString(k.Key)
	if err != nil {
		return "", fmt.Errorf("oauth: signing the client assertion: %w", err)
	}
	return s, nil
}

// dpopKey makes DPoP proofs (RFC 9449) with one P-256 key.
type dpopKey struct {
	key *ecdsa.PrivateKey
	jwk map[string]any
}

func newDPoPKey() (*dpopKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauth: DPoP key: %w", err)
	}
	pad := func(n *big.Int) string {
		b := make([]byte, 32)
		return base64.RawURLEncoding.EncodeToString(n.FillBytes(b))
	}
	return &dpopKey{key: key, jwk: map[string]any{
		"kty": "EC", "crv": "P-256", "x": pad(key.X), "y": pad(key.Y),
	}}, nil
}

// proof returns a fresh proof for a request: its method and URL (without
// query and fragment), the access token's hash when one is presented,
// and the server's nonce when it gave one.
func (d *dpopKey) proof(method, target, accessToken, nonce string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("oauth: DPoP target: %w", err)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	claims := jwt.MapClaims{
		"jti": randomString(16),
		"htm": method,
		"htu": u.String(),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["typ"] = "dpop+jwt"
	tok.Header["jwk"] = d.jwk
	s, err := tok.SignedString(d.key)
	if err != nil {
		return "", fmt.Errorf("oauth: signing the DPoP proof: %w", err)
	}
	return s, nil
}
