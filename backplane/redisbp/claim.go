package redisbp

import (
	"context"
	"fmt"
	"time"
)

// Claim implements backplane.Backplane with SET NX. A ttl <= 0 holds the
// key until Release.
func (b *Backplane) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ok, err := b.client.SetNX(ctx, b.claimKey(key), 1, time.Duration(millis(ttl))*time.Millisecond).Result()
	if err != nil {
		return false, fmt.Errorf("redisbp: claim: %w", err)
	}
	return ok, nil
}

// Release implements backplane.Backplane.
func (b *Backplane) Release(ctx context.Context, key string) error {
	if err := b.client.Del(ctx, b.claimKey(key)).Err(); err != nil {
		return fmt.Errorf("redisbp: release: %w", err)
	}
	return nil
}
