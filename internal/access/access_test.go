package access

import "testing"

func set(names ...string) map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

func TestPermits(t *testing.T) {
	cases := []struct {
		name string
		n    Names
		keys []string
		want bool
		filt bool
	}{
		{"zero value permits", Names{}, []string{"a"}, true, false},
		{"allow-list names it", Names{Allow: set("a")}, []string{"a"}, true, true},
		{"allow-list does not name it", Names{Allow: set("a")}, []string{"b"}, false, true},
		{"empty allow-list permits nothing", Names{Allow: set()}, []string{"a"}, false, true},
		{"deny-list hides it", Names{Deny: set("a")}, []string{"a"}, false, true},
		{"deny-list leaves the rest", Names{Deny: set("a")}, []string{"b"}, true, true},
		{"deny beats allow", Names{Allow: set("a"), Deny: set("a")}, []string{"a"}, false, true},
		{"any key allows (URI or pattern)", Names{Allow: set("app://x/{id}")}, []string{"app://x/:id", "app://x/{id}", "app://x/1"}, true, true},
		{"any key denies", Names{Deny: set("app://x/1")}, []string{"app://x/:id", "app://x/{id}", "app://x/1"}, false, true},
		{"empty keys are skipped", Names{Allow: set("")}, []string{"", "b"}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.Permits(tc.keys...); got != tc.want {
				t.Errorf("Permits(%q) = %t, want %t", tc.keys, got, tc.want)
			}
			if got := tc.n.Filtered(); got != tc.filt {
				t.Errorf("Filtered() = %t, want %t", got, tc.filt)
			}
		})
	}
}
