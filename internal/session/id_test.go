package session

import "testing"

func TestValidID(t *testing.T) {
	for range 100 {
		if id := NewID(); !ValidID(id) {
			t.Fatalf("issued id %q is refused", id)
		}
	}
	for _, id := range []string{"", "short", "abc}:session:xxxxxxxxx", "{aaaaaaaaaaaaaaaaaaaa}", "aaaaaaaaaaaaaaaaaaaaa=", "aaaaaaaaaaaaaaaaaaaaaaa"} {
		if ValidID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}
