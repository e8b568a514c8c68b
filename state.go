package specter

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// requestState is what a multi round-trip request carries between rounds:
// the answers gathered so far, bound to the caller, the request and a
// deadline. It travels through the client sealed with AES-GCM, so the
// client can neither read nor alter it.
type requestState struct {
	Principal string                     `json:"p,omitempty"`
	Method    string                     `json:"m"`
	Name      string                     `json:"n"`
	Expires   int64                      `json:"e"` // unix milliseconds
	Answers   map[string]json.RawMessage `json:"a,omitempty"`
}

// sealer seals and opens request states with one server key.
type sealer struct {
	aead cipher.AEAD
	ttl  time.Duration
}

func newSealer(secret []byte, ttl time.Duration) (*sealer, error) {
	if secret == nil {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("specter: state key: %w", err)
		}
	}
	key := sha256.Sum256(secret) // any secret length yields an AES-256 key
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("specter: state key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("specter: state key: %w", err)
	}
	return &sealer{aead: aead, ttl: ttl}, nil
}

func (s *sealer) seal(st *requestState) (string, error) {
	st.Expires = time.Now().Add(s.ttl).UnixMilli()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("specter: seal request state: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("specter: seal request state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil)), nil
}

// Reasons a request state is refused; the client sees them as -32602.
var (
	errStateInvalid  = errors.New("requestState is not valid for this server")
	errStateExpired  = errors.New("requestState has expired; start the request again without it")
	errStateMismatch = errors.New("requestState belongs to another request or caller")
)

// open verifies a state for the given caller and request.
func (s *sealer) open(token, principal, method, name string) (*requestState, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, errStateInvalid
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, errStateInvalid
	}
	var st requestState
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, errStateInvalid
	}
	if time.Now().UnixMilli() > st.Expires {
		return nil, errStateExpired
	}
	if st.Principal != principal || st.Method != method || st.Name != name {
		return nil, errStateMismatch
	}
	return &st, nil
}
