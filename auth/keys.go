package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// minRSABits is the smallest RSA modulus accepted (RFC 7518 §3.3 requires
// 2048 bits for RS* and PS*).
const minRSABits = 2048

// knownAlgorithm reports whether alg is a JWS algorithm this package can
// verify.
func knownAlgorithm(alg string) bool {
	switch alg {
	case "HS256", "HS384", "HS512",
		"RS256", "RS384", "RS512",
		"PS256", "PS384", "PS512",
		"ES256", "ES384", "ES512",
		"EdDSA":
		return true
	}
	return false
}

func isHMAC(alg string) bool { return strings.HasPrefix(alg, "HS") && knownAlgorithm(alg) }

// errKeyMismatch means the key found for a token cannot verify the
// token's algorithm: an RSA key offered to an HS256 token is the classic
// algorithm-confusion attack.
var errKeyMismatch = errors.New("the key does not suit the token's algorithm")

// suits reports whether key can verify signatures of alg. golang-jwt
// checks the Go type of the key too, but not the curve, the RSA size or
// the HMAC secret's length, and a custom KeyFunc may return anything.
func suits(alg string, key any) bool {
	switch k := key.(type) {
	case []byte:
		switch alg {
		case "HS256":
			return len(k) >= 32
		case "HS384":
			return len(k) >= 48
		case "HS512":
			return len(k) >= 64
		}
	case *rsa.PublicKey:
		return (strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")) &&
			k != nil && k.N != nil && k.N.BitLen() >= minRSABits
	case *ecdsa.PublicKey:
		if k == nil {
			return false
		}
		switch alg {
		case "ES256":
			return k.Curve == elliptic.P256()
		case "ES384":
			return k.Curve == elliptic.P384()
		case "ES512":
			return k.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA" && len(k) == ed25519.PublicKeySize
	}
	return false
}

// keyFor returns what golang-jwt should verify a token signed with alg
// with: key itself, or from a key set only the keys that suit alg.
func keyFor(alg string, key any) (any, error) {
	if set, ok := key.(jwt.VerificationKeySet); ok {
		var fit jwt.VerificationKeySet
		for _, k := range set.Keys {
			if suits(alg, k) {
				fit.Keys = append(fit.Keys, k)
			}
		}
		if len(fit.Keys) == 0 {
			return nil, errKeyMismatch
		}
		return fit, nil
	}
	if !suits(alg, key) {
		return nil, errKeyMismatch
	}
	return key, nil
}

// staticKeys checks the keys of Config.Keys once, at construction, and
// keeps only public halves: each must be a supported type that can verify
// at least one of algs.
func staticKeys(keys map[string]any, algs []string) (map[string]any, error) {
	out := make(map[string]any, len(keys))
	var errs []error
	for kid, key := range keys {
		if priv, ok := key.(interface{ Public() crypto.PublicKey }); ok {
			key = priv.Public()
		}
		usable := false
		for _, alg := range algs {
			if suits(alg, key) {
				usable = true
				break
			}
		}
		if !usable {
			errs = append(errs, fmt.Errorf("Keys[%q]: a %s cannot verify any of %v", kid, describeKey(key), algs))
			continue
		}
		out[kid] = key
	}
	return out, errors.Join(errs...)
}

// describeKey names a key's type and size, never its material.
func describeKey(key any) string {
	switch k := key.(type) {
	case []byte:
		return fmt.Sprintf("%d-byte HMAC secret", len(k))
	case *rsa.PublicKey:
		if k != nil && k.N != nil {
			return fmt.Sprintf("%d-bit RSA key", k.N.BitLen())
		}
	case *ecdsa.PublicKey:
		if k != nil && k.Curve != nil {
			return "ECDSA " + k.Curve.Params().Name + " key"
		}
	case ed25519.PublicKey:
		return "Ed25519 key"
	case string:
		return "string (HMAC secrets are []byte)"
	}
	return fmt.Sprintf("key of unsupported type %T", key)
}
