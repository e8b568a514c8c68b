package specter

import (
	"sync"
	"sync/atomic"
)

// warnedKeys is a bounded set of keys: what a warning was logged for,
// so that a warning about the same name is logged once and not on every
// request. The zero value is empty, holds up to
// 1024 keys and is safe for concurrent use.
type warnedKeys struct {
	seen sync.Map
	n    atomic.Int32
}

// maxWarnedKeys bounds the keys remembered: past it, First reports false, so that
// names an attacker makes up cannot grow the set without end.
const maxWarnedKeys = 1024

// First reports whether key is new, and remembers it.
func (k *warnedKeys) First(key string) bool {
	if _, seen := k.seen.Load(key); seen || k.n.Load() >= maxWarnedKeys {
		return false
	}
	if _, dup := k.seen.LoadOrStore(key, struct{}{}); dup {
		return false
	}
	k.n.Add(1)
	return true
}
