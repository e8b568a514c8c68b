package specter

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestWaitFor(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitFor(ctx, &wg); !errors.Is(err, context.Canceled) {
		t.Errorf("waitFor with work left and ctx ended: %v, want context.Canceled", err)
	}
	wg.Done()
	if err := waitFor(context.Background(), &wg); err != nil {
		t.Errorf("waitFor with the work done: %v", err)
	}
}
