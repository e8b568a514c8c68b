package specter

import "time"

// HeldTTL sets how long what a node holds open (a GET or listen stream)
// counts against a shared quota without the node's renewal, so that a
// test sees a dead node's entries run out.
func HeldTTL(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.heldTTL = d })
}
