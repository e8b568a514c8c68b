package specter

import "testing"

func TestValidSessionID(t *testing.T) {
	for range 100 {
		if id := randomID(); !validSessionID(id) {
			t.Fatalf("issued id %q is refused", id)
		}
	}
	for _, id := range []string{"", "short", "abc}:session:xxxxxxxxx", "{aaaaaaaaaaaaaaaaaaaa}", "aaaaaaaaaaaaaaaaaaaaa=", "aaaaaaaaaaaaaaaaaaaaaaa"} {
		if validSessionID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}
