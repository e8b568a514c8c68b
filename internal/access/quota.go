package access

import (
	"sync"
	"sync/atomic"
)

// Quota counts, per key (a principal, a client address), what is held of
// a shared pool, up to Limit each, so that no single holder can take all
// of it. Its methods are safe for concurrent use.
type Quota struct {
	limit int
	mu    sync.Mutex
	held  map[string]int
}

// NewQuota returns a counter allowing limit per key; limit <= 0 means no limit
// (nothing is counted).
func NewQuota(limit int) *Quota { return &Quota{limit: limit, held: map[string]int{}} }

// Limit returns the limit per key; 0 or less means none.
func (c *Quota) Limit() int { return c.limit }

// Take counts one more for key if key holds fewer than the limit. On
// success it returns the function that gives the unit back; calling it
// more than once gives back only once. It reports false, counting
// nothing, when key is at the limit.
func (c *Quota) Take(key string) (release func(), ok bool) {
	if c.limit <= 0 {
		return func() {}, true
	}
	c.mu.Lock()
	if c.held[key] >= c.limit {
		c.mu.Unlock()
		return nil, false
	}
	c.held[key]++
	c.mu.Unlock()
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			c.give(key)
		}
	}, true
}

func (c *Quota) give(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.held[key] - 1; n > 0 {
		c.held[key] = n
		return
	}
	delete(c.held, key)
	if len(c.held) == 0 {
		c.held = map[string]int{} // maps keep their peak size; start small again
	}
}

// Held returns what key holds.
func (c *Quota) Held(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[key]
}
