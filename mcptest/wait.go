package mcptest

import (
	"context"
	"testing"
	"time"
)

// reportMargin is how long before the test binary's deadline (go test
// -timeout) a wait on Context gives up, so that the test fails with a
// message naming what it waited for rather than the binary panicking.
const reportMargin = 10 * time.Second

// Context returns a context that ends with the test t, or shortly before
// the test binary's deadline (go test -timeout). Waits on it assume
// nothing about the machine's speed: work that is merely slow (a loaded
// machine, the race detector) finishes, and only work that never finishes
// fails the test.
func Context(t testing.TB) context.Context {
	withDeadline, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return t.Context() // a benchmark
	}
	deadline, ok := withDeadline.Deadline()
	if !ok {
		return t.Context() // go test -timeout 0
	}
	if d := deadline.Add(-reportMargin); time.Until(d) > 0 {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// WaitUntil polls cond until it holds, and fails the test, naming what it
// waited for, when Context(t) ends first. It waits on a condition rather
// than for a time, so it is as fast as the machine allows.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	done := Context(t).Done()
	for !cond() {
		select {
		case <-done:
			t.Fatalf("the test's deadline came before %s", what)
		case <-time.After(2 * time.Millisecond):
		}
	}
}
