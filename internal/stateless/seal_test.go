package stateless

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
	s, err := NewSealer(secret, ttl)
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

var booking = Bind("u1", "tools/call", "book", json.RawMessage(`{"env":"staging"}`))

func book() *State {
	return &State{Binding: booking, Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}}
}

func bind(principal, method, name, args string) Binding {
	return Bind(principal, method, name, json.RawMessage(args))
}

func TestRoundTrip(t *testing.T) {
	s := mustNew(t, []byte("a server secret"), time.Minute)
	tok := mustSeal(t, s, book())
	st, err := s.Open(tok, booking)
	if err != nil || string(st.Answers["k"]) != `{"action":"accept"}` {
		t.Fatalf("Open = %+v, %v", st, err)
	}
	// Another sealer with the same secret opens it: nodes share a key.
	if _, err := mustNew(t, []byte("a server secret"), time.Minute).Open(tok, booking); err != nil {
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
		name string
		s    *Sealer
		tok  string
		b    Binding
		want error
	}{
		{"tampered", s, string(flipped), booking, ErrStateInvalid},
		{"suffix", s, tok + "-TAMPERED", booking, ErrStateInvalid},
		{"truncated", s, tok[:len(tok)-4], booking, ErrStateInvalid},
		{"not base64", s, "!!!", booking, ErrStateInvalid},
		{"shorter than a nonce", s, "AAAA", booking, ErrStateInvalid},
		{"empty", s, "", booking, ErrStateInvalid},
		{"other key", mustNew(t, []byte("another secret"), time.Minute), tok, booking, ErrStateInvalid},
		{"random key", mustNew(t, nil, time.Minute), tok, booking, ErrStateInvalid},
		{"expired", s, old, booking, ErrStateExpired},
		{"other principal", s, tok, bind("u2", "tools/call", "book", `{"env":"staging"}`), ErrStateMismatch},
		{"anonymous", s, tok, bind("", "tools/call", "book", `{"env":"staging"}`), ErrStateMismatch},
		{"other name", s, tok, bind("u1", "tools/call", "cancel", `{"env":"staging"}`), ErrStateMismatch},
		{"other method", s, tok, bind("u1", "prompts/get", "book", `{"env":"staging"}`), ErrStateMismatch},
		{"other arguments", s, tok, bind("u1", "tools/call", "book", `{"env":"production"}`), ErrStateMismatch},
		{"more arguments", s, tok, bind("u1", "tools/call", "book", `{"env":"staging","force":true}`), ErrStateMismatch},
		{"no arguments", s, tok, bind("u1", "tools/call", "book", ``), ErrStateMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, err := tc.s.Open(tc.tok, tc.b); !errors.Is(err, tc.want) || st != nil {
				t.Errorf("Open = %v, %v; want nil, %v", st, err, tc.want)
			}
		})
	}
}

func TestRandomDefaultKey(t *testing.T) {
	a, b := mustNew(t, nil, time.Minute), mustNew(t, nil, time.Minute)
	tok := mustSeal(t, a, book())
	if _, err := a.Open(tok, booking); err != nil {
		t.Fatalf("the sealing process cannot open its state: %v", err)
	}
	if _, err := b.Open(tok, booking); !errors.Is(err, ErrStateInvalid) {
		t.Errorf("another random key opened the state: %v", err)
	}
}

func FuzzOpen(f *testing.F) {
	s := mustNew(f, []byte("fuzz"), time.Minute)
	f.Add(mustSeal(f, s, book()))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, tok string) {
		st, err := s.Open(tok, booking)
		if (st == nil) == (err == nil) {
			t.Fatalf("Open = %v, %v: want exactly one of a state and an error", st, err)
		}
	})
}

func TestBindArguments(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"env":"staging"}`, `{ "env" : "staging" }`, true},
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1}`, true},
		{`{"s":"\u00e9"}`, `{"s":"é"}`, true},
		{``, `{}`, true},
		{`null`, `{}`, true},
		{` `, `{}`, true},
		{`{"env":"staging"}`, `{"env":"production"}`, false},
		{`{"env":"staging"}`, `{"env":"staging","x":1}`, false},
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		{`{"n":1}`, `{"n":"1"}`, false},
		{`{"env":"staging"}`, `{}`, false},
		{`[1]`, `{}`, false},
	} {
		ba, bb := bind("u", "tools/call", "t", tc.a), bind("u", "tools/call", "t", tc.b)
		if (ba == bb) != tc.same {
			t.Errorf("Bind(%s) == Bind(%s) is %v, want %v", tc.a, tc.b, ba == bb, tc.same)
		}
	}
}
