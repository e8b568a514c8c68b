package specter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestRequestStateSealing(t *testing.T) {
	s, err := newSealer([]byte("a server secret"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.seal(&requestState{Principal: "u1", Method: "tools/call", Name: "book", Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.open(tok, "u1", "tools/call", "book")
	if err != nil || string(st.Answers["k"]) != `{"action":"accept"}` {
		t.Fatalf("open: %+v %v", st, err)
	}
	again, _ := s.seal(&requestState{Principal: "u1", Method: "tools/call", Name: "book"})
	if again == tok {
		t.Error("two seals gave the same token: the nonce is not random")
	}
	flipped := []byte(tok)
	flipped[len(flipped)/2] ^= 1
	other, _ := newSealer([]byte("another secret"), time.Minute)
	expired, _ := newSealer([]byte("a server secret"), -time.Minute)
	old, _ := expired.seal(&requestState{Principal: "u1", Method: "tools/call", Name: "book"})
	for _, tc := range []struct {
		name                  string
		s                     *sealer
		tok, who, method, obj string
		want                  error
	}{
		{"tampered", s, string(flipped), "u1", "tools/call", "book", errStateInvalid},
		{"suffix", s, tok + "-TAMPERED", "u1", "tools/call", "book", errStateInvalid},
		{"not base64", s, "!!!", "u1", "tools/call", "book", errStateInvalid},
		{"short", s, "AAAA", "u1", "tools/call", "book", errStateInvalid},
		{"other key", other, tok, "u1", "tools/call", "book", errStateInvalid},
		{"expired", s, old, "u1", "tools/call", "book", errStateExpired},
		{"other caller", s, tok, "u2", "tools/call", "book", errStateMismatch},
		{"other tool", s, tok, "u1", "tools/call", "cancel", errStateMismatch},
		{"other method", s, tok, "u1", "prompts/get", "book", errStateMismatch},
	} {
		if _, err := tc.s.open(tc.tok, tc.who, tc.method, tc.obj); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	if bytes.Contains(raw, []byte(`"action":"accept"`)) || bytes.Contains(raw, []byte(`"tools/call"`)) {
		t.Error("the sealed state is readable")
	}
}
