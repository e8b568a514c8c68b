package redisbp

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// reloadEvery bounds how often a failed call makes a Cluster client
// reload its map of slots.
const reloadEvery = 500 * time.Millisecond

// failed notes that a call failed with err. On a Cluster, the master of a
// slot may have died and a replica taken over: go-redis keeps sending to
// the dead one until it reloads its map of slots, which it does not do
// by itself after a refused connection. So a failure reloads the map,
// at most every reloadEvery, in the background.
func (b *Backplane) failed(err error) {
	cc, ok := b.client.(*redis.ClusterClient)
	if !ok || err == nil || redis.HasErrorPrefix(err, "NOSCRIPT") {
		return
	}
	now := time.Now().UnixNano()
	last := b.reloaded.Load()
	if now-last < int64(reloadEvery) || !b.reloaded.CompareAndSwap(last, now) {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.background.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.background.Done()
		ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
		defer cancel()
		cc.ReloadState(ctx)
	}()
}
