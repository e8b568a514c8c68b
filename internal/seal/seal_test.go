package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func mustNew(t testing.TB, secret []byte, ttl time.Duration) *Sealer {
	t.Helper()
	s, err := New(secret, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSeal(t testing.TB, s *Sealer, st *State) string {
	t.Helper()
	tok, err := s.Seal(st)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func book() *State {
	return &State{Principal: "u1", Method: "tools/call", Name: "book",
		Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}}
}

func TestRoundTrip(t *testing.T) {
	s := mustNew(t, []byte("a server secret"), time.Minute)
	tok := mustSeal(t, s, book())
	st, err := s.Open(tok, "u1", "tools/call", "book")
	if err != nil || string(st.Answers["k"]) != `{"action":"accept"}` {
		t.Fatalf("Open = %+v, %v", st, err)
	}
	// Another sealer with the same secret opens it: nodes share a key.
	if _, err := mustNew(t, []byte("a server secret"), time.Minute).Open(tok, "u1", "tools/call", "book"); err != nil {
		t.Errorf("same secret, another sealer: %v", err)
	}
	if again := mustSeal(t, s, book()); again == tok {
		t.Error("two seals of one state gave one token: the nonce is not random")
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	if bytes.Contains(raw, []byte(`"action":"accept"`)) || bytes.Contains(raw, []byte(`tools/call`)) {
		t.Error("the sealed state is readable")
	}
}

func TestOpenRefuses(t *testing.T) {
	s := mustNew(t, []byte("a server secret"), time.Minute)
	tok := mustSeal(t, s, book())
	flipped := []byte(tok)
	flipped[len(flipped)/2] ^= 1
	old := mustSeal(t, mustNew(t, []byte("a server secret"), -time.Minute), book())
	for _, tc := range []struct {
		name                  string
		s                     *Sealer
		tok, who, method, obj string
		want                  error
	}{
		{"tampered", s, string(flipped), "u1", "tools/call", "book", ErrInvalid},
		{"suffix", s, tok + "-TAMPERED", "u1", "tools/call", "book", ErrInvalid},
		{"truncated", s, tok[:len(tok)-4], "u1", "tools/call", "book", ErrInvalid},
		{"not base64", s, "!!!", "u1", "tools/call", "book", ErrInvalid},
		{"shorter than a nonce", s, "AAAA", "u1", "tools/call", "book", ErrInvalid},
		{"empty", s, "", "u1", "tools/call", "book", ErrInvalid},
		{"other key", mustNew(t, []byte("another secret"), time.Minute), tok, "u1", "tools/call", "book", ErrInvalid},
		{"random key", mustNew(t, nil, time.Minute), tok, "u1", "tools/call", "book", ErrInvalid},
		{"expired", s, old, "u1", "tools/call", "book", ErrExpired},
		{"other principal", s, tok, "u2", "tools/call", "book", ErrMismatch},
		{"anonymous", s, tok, "", "tools/call", "book", ErrMismatch},
		{"other name", s, tok, "u1", "tools/call", "cancel", ErrMismatch},
		{"other method", s, tok, "u1", "prompts/get", "book", ErrMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, err := tc.s.Open(tc.tok, tc.who, tc.method, tc.obj); !errors.Is(err, tc.want) || st != nil {
				t.Errorf("Open = %v, %v; want nil, %v", st, err, tc.want)
			}
		})
	}
}

func TestRandomDefaultKey(t *testing.T) {
	a, b := mustNew(t, nil, time.Minute), mustNew(t, nil, time.Minute)
	tok := mustSeal(t, a, book())
	if _, err := a.Open(tok, "u1", "tools/call", "book"); err != nil {
		t.Fatalf("the sealing process cannot open its state: %v", err)
	}
	if _, err := b.Open(tok, "u1", "tools/call", "book"); !errors.Is(err, ErrInvalid) {
		t.Errorf("another random key opened the state: %v", err)
	}
}

func FuzzOpen(f *testing.F) {
	s := mustNew(f, []byte("fuzz"), time.Minute)
	f.Add(mustSeal(f, s, book()))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, tok string) {
		st, err := s.Open(tok, "u1", "tools/call", "book")
		if (st == nil) == (err == nil) {
			t.Fatalf("Open = %v, %v: want exactly one of a state and an error", st, err)
		}
	})
}
