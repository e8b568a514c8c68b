package mcptest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter/mcptest"
)

// Context ends no earlier than the test's deadline allows, and ends with
// the test.
func TestContext(t *testing.T) {
	var ctx interface{ Err() error }
	t.Run("inner", func(t *testing.T) {
		c := mcptest.Context(t)
		if d, ok := t.Deadline(); ok {
			if cd, _ := c.Deadline(); cd.After(d) {
				t.Errorf("the context ends at %v, after the test's deadline %v", cd, d)
			}
		}
		if c.Err() != nil {
			t.Fatalf("the context ended during the test: %v", c.Err())
		}
		ctx = c
	})
	if ctx.Err() == nil {
		t.Error("the context outlived its test")
	}
}

// WaitUntil returns once its condition holds, however long that takes.
func TestWaitUntil(t *testing.T) {
	var ready atomic.Bool
	go func() {
		time.Sleep(10 * time.Millisecond) // work that takes a while
		ready.Store(true)
	}()
	mcptest.WaitUntil(t, "the work is done", ready.Load)
	if !ready.Load() {
		t.Fatal("WaitUntil returned before its condition held")
	}
}
