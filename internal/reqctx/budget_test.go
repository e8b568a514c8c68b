package reqctx

import (
	"context"
	"sync"
	"testing"
	"time"
)

// counter is a Budget of n tokens whose wait is fixed.
type counter struct {
	mu    sync.Mutex
	n     int
	taken int
	wait  time.Duration
}

func (c *counter) Take() (bool, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return false, c.wait
	}
	c.n--
	c.taken++
	return true, 0
}

func TestTakeWithoutBudget(t *testing.T) {
	for range 3 {
		if ok, wait := TakeBudget(context.Background()); !ok || wait != 0 {
			t.Fatalf("Take without a budget = %v, %v; want true, 0", ok, wait)
		}
	}
}

func TestTakeUntilEmpty(t *testing.T) {
	b := &counter{n: 30, wait: 2 * time.Second}
	ctx := WithBudget(context.Background(), b)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 100 {
		wg.Go(func() {
			if ok, _ := TakeBudget(ctx); ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 30 {
		t.Errorf("%d of 100 allowed, want 30", allowed)
	}
	if ok, wait := TakeBudget(ctx); ok || wait != 2*time.Second {
		t.Errorf("empty budget: Take = %v, %v; want false, 2s", ok, wait)
	}
}

func TestTakeNested(t *testing.T) {
	tests := []struct {
		name                 string
		outer, inner         int
		ok                   bool
		wait                 time.Duration
		outerLeft, innerLeft int
	}{
		{"both have tokens", 1, 1, true, 0, 0, 0},
		{"outer empty", 0, 1, false, time.Second, 0, 1},
		{"inner empty spends the outer token", 1, 0, false, time.Minute, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer := &counter{n: tt.outer, wait: time.Second}
			inner := &counter{n: tt.inner, wait: time.Minute}
			ctx := WithBudget(WithBudget(context.Background(), outer), inner)
			ok, wait := TakeBudget(ctx)
			if ok != tt.ok || wait != tt.wait {
				t.Errorf("Take = %v, %v; want %v, %v", ok, wait, tt.ok, tt.wait)
			}
			if outer.n != tt.outerLeft || inner.n != tt.innerLeft {
				t.Errorf("left: outer %d, inner %d; want %d, %d", outer.n, inner.n, tt.outerLeft, tt.innerLeft)
			}
		})
	}
}
