package stateless

// A Sealer seals the requestState of a multi round-trip request: the
// answers gathered so far, bound to the caller, the request and a
// deadline, encrypted and authenticated with AES-GCM so that the client
// that carries it between rounds can neither read nor alter it.

import (
	"bytes"
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

// Binding is what a state belongs to: the caller, the request and the
// request's arguments. A state opens only for the binding it was sealed
// with.
type Binding struct {
	Principal string `json:"p,omitempty"`
	Method    string `json:"m"`
	Name      string `json:"n"`
	Args      string `json:"g,omitempty"` // a digest of the arguments; see Bind
}

// Bind returns the binding of a request. The arguments are bound by a
// SHA-256 digest of their canonical JSON (object keys sorted, numbers as
// written), so that answers given to "deploy to staging?" cannot complete
// "deploy to production", while a client that re-encodes the same
// arguments differently is not refused. No arguments, null and {} are
// the same; arguments that are not JSON are digested as sent.
func Bind(principal, method, name string, args json.RawMessage) Binding {
	return Binding{Principal: principal, Method: method, Name: name, Args: digest(args)}
}

func digest(args json.RawMessage) string {
	sum := sha256.Sum256(canonical(args))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func canonical(args json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // float64 would make distinct large numbers one
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		if len(bytes.TrimSpace(args)) == 0 {
			return []byte("{}")
		}
		return args
	}
	if m, ok := v.(map[string]any); v == nil || (ok && len(m) == 0) {
		return []byte("{}")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}

// State is what a requestState carries between rounds.
type State struct {
	Binding
	Expires int64                      `json:"e"` // unix milliseconds, set by Seal
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// Sealer seals and opens states with one server key. It is safe for
// concurrent use.
type Sealer struct {
	aead cipher.AEAD
	ttl  time.Duration
}

// NewSealer returns a sealer whose states expire ttl after sealing. Any secret
// length is accepted: the AES-256 key is its SHA-256. A nil secret means a
// random key, so that only this process can open its states. It fails only
// when the system's random source does.
func NewSealer(secret []byte, ttl time.Duration) (*Sealer, error) {
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

// MustNewSealer is New for a caller that cannot go on without a sealer: it
// panics if the system's random source fails.
func MustNewSealer(secret []byte, ttl time.Duration) *Sealer {
	s, err := NewSealer(secret, ttl)
	if err != nil {
		panic(err)
	}
	return s
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
	ErrStateInvalid  = errors.New("requestState is not valid for this server")
	ErrStateExpired  = errors.New("requestState has expired; start the request again without it")
	ErrStateMismatch = errors.New("requestState belongs to another request, caller or arguments")
)

// Open verifies token and returns its state when it was sealed by this
// key, has not expired, and has binding b.
func (s *Sealer) Open(token string, b Binding) (*State, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n {
		return nil, ErrStateInvalid
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, ErrStateInvalid
	}
	var st State
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, ErrStateInvalid
	}
	if time.Now().UnixMilli() > st.Expires {
		return nil, ErrStateExpired
	}
	if st.Binding != b {
		return nil, ErrStateMismatch
	}
	return &st, nil
}
