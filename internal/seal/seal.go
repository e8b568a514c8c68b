// Package seal seals the requestState of a multi round-trip request
// (MCP 2026-07-28): the answers gathered so far, bound to the caller, the
// request and a deadline, encrypted and authenticated with AES-GCM so that
// the client that carries it between rounds can neither read nor alter it.
package seal

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

// State is what a requestState carries between rounds.
type State struct {
	Principal string                     `json:"p,omitempty"`
	Method    string                     `json:"m"`
	Name      string                     `json:"n"`
	Expires   int64                      `json:"e"` // unix milliseconds, set by Seal
	Answers   map[string]json.RawMessage `json:"a,omitempty"`
}

// Sealer seals and opens states with one server key. It is safe for
// concurrent use.
type Sealer struct {
	aead cipher.AEAD
	ttl  time.Duration
}

// New returns a sealer whose states expire ttl after sealing. Any secret
// length is accepted: the AES-256 key is its SHA-256. A nil secret means a
// random key, so that only this process can open its states. It fails only
// when the system's random source does.
func New(secret []byte, ttl time.Duration) (*Sealer, error) {
	if secret == nil {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("seal: random key: %w", err)
		}
	}
	key := sha256.Sum256(secret)
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: key: %w", err)
	}
	return &Sealer{aead: aead, ttl: ttl}, nil
}

// Seal sets st's expiry and returns it sealed, as unpadded URL-safe
// Base64 of a random nonce followed by the ciphertext.
func (s *Sealer) Seal(st *State) (string, error) {
	st.Expires = time.Now().Add(s.ttl).UnixMilli()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("seal: encode state: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil)), nil
}

// Reasons Open refuses a state. Their text is written for the client,
// which sees it in the JSON-RPC error.
var (
	ErrInvalid  = errors.New("requestState is not valid for this server")
	ErrExpired  = errors.New("requestState has expired; start the request again without it")
	ErrMismatch = errors.New("requestState belongs to another request or caller")
)

// Open verifies token and returns its state when it was sealed by this
// key, has not expired, and belongs to this caller and request.
func (s *Sealer) Open(token, principal, method, name string) (*State, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n {
		return nil, ErrInvalid
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, ErrInvalid
	}
	var st State
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, ErrInvalid
	}
	if time.Now().UnixMilli() > st.Expires {
		return nil, ErrExpired
	}
	if st.Principal != principal || st.Method != method || st.Name != name {
		return nil, ErrMismatch
	}
	return &st, nil
}
