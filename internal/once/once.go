// Package once remembers which keys something was done for, so that a
// warning about the same name is logged once and not on every request.
package once

import (
	"sync"
	"sync/atomic"
)

// Keys is a bounded set of keys. The zero value is empty, holds up to
// 1024 keys and is safe for concurrent use.
type Keys struct {
	seen sync.Map
	n    atomic.Int32
}

// Max bounds the keys remembered: past it, First reports false, so that
// names an attacker makes up cannot grow the set without end.
const Max = 1024

// First reports whether key is new, and remembers it.
func (k *Keys) First(key string) bool {
	if _, seen := k.seen.Load(key); seen || k.n.Load() >= Max {
		return false
	}
	if _, dup := k.seen.LoadOrStore(key, struct{}{}); dup {
		return false
	}
	k.n.Add(1)
	return true
}
