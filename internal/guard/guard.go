// Package guard runs application code so that a panic becomes an error
// carrying the panic's value and stack: one handler cannot take the
// server down, and the report still shows where it failed.
package guard

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// PanicError is a recovered panic.
type PanicError struct {
	Value any
	Stack []byte // of the goroutine that panicked, at recovery
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.Value, p.Stack) }

// Recovered returns the error of a value recover returned; call it in the
// deferred function, so that the stack is the panicking goroutine's.
func Recovered(v any) error { return &PanicError{Value: v, Stack: debug.Stack()} }

// Run calls f and returns the error of its panic, or nil.
func Run(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = Recovered(v)
		}
	}()
	f()
	return nil
}

// Err runs f and returns its error, or the panic it raised as a
// *PanicError.
func Err(f func() error) (err error) {
	if perr := Run(func() { err = f() }); perr != nil {
		return perr
	}
	return err
}

// Within runs f on its own goroutine with a context that ends after d, and
// returns f's result with true; or, when d passes first, the zero R and
// false at once, leaving f to notice its context and end. When ctx ends
// first, it waits for f: the caller's own cancellation is no time limit.
func Within[R any](ctx context.Context, d time.Duration, f func(context.Context) R) (R, bool) {
	limited, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan R, 1)
	go func() { done <- f(limited) }()
	select {
	case r := <-done:
		return r, true
	case <-limited.Done():
		if ctx.Err() != nil {
			return <-done, true
		}
	}
	var zero R
	return zero, false
}
