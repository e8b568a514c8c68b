package access

import (
	"strings"
	"testing"

	"github.com/specter-mcp/specter/principal"
)

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

func TestAllows(t *testing.T) {
	reader := &principal.Principal{ID: "r", Scopes: []string{"files:read"}}
	onlyR := func(p *principal.Principal) bool { return p != nil && p.ID == "r" }
	tests := []struct {
		caller  *principal.Principal
		scopes  []string
		policy  func(*principal.Principal) bool
		ok      bool
		missing string
	}{
		{nil, nil, nil, true, ""},
		{nil, []string{"files:read"}, nil, false, "files:read"},
		{reader, []string{"files:read", "files:write", "admin"}, nil, false, "files:write admin"},
		{reader, []string{"files:read"}, onlyR, true, ""},
		{&principal.Principal{ID: "x"}, nil, onlyR, false, ""},
		{nil, nil, onlyR, false, ""},
	}
	for _, tt := range tests {
		ok, missing := Allows(tt.caller, tt.scopes, tt.policy)
		if ok != tt.ok || strings.Join(missing, " ") != tt.missing {
			t.Errorf("Allows(%v, %q) = %v %q; want %v %q", tt.caller, tt.scopes, ok, missing, tt.ok, tt.missing)
		}
	}
}
