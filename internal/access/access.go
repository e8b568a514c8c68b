// Package access holds one kind of connect's decisions about a caller:
// the names it is allowed (an allow-list, or everything) and the names
// hidden from it (a deny-list). One check answers for lists, calls,
// reads, completion and notifications alike. Scopes and policies, which
// a declaration sets, are checked here too, and so are the quotas that
// keep one caller from holding all of a shared pool.
package access

import "github.com/specter-mcp/specter/principal"

// Allows reports whether caller (nil when anonymous) holds every scope of
// scopes, else which it lacks, and whether policy, if set, allows it.
func Allows(caller *principal.Principal, scopes []string, policy func(*principal.Principal) bool) (ok bool, missing []string) {
	for _, sc := range scopes {
		if !caller.HasScope(sc) {
			missing = append(missing, sc)
		}
	}
	if len(missing) > 0 {
		return false, missing
	}
	return policy == nil || policy(caller), nil
}

// Names is one kind's allow-list (nil: every name) and deny-list. The
// zero value permits everything.
type Names struct{ Allow, Deny map[string]struct{} }

// Filtered reports whether the lists hide anything.
func (n Names) Filtered() bool { return n.Allow != nil || n.Deny != nil }

// Permits reports whether any of keys (a name, or a resource's URI and
// its patterns) is allowed and none is hidden. Empty keys are skipped.
func (n Names) Permits(keys ...string) bool {
	allowed := n.Allow == nil
	for _, k := range keys {
		if k == "" {
			continue
		}
		if _, ok := n.Deny[k]; ok {
			return false
		}
		if _, ok := n.Allow[k]; ok {
			allowed = true
		}
	}
	return allowed
}
