// Package guard runs application code so that a panic becomes an error
// carrying the panic's value and stack: one handler cannot take the
// server down, and the report still shows where it failed.
package guard

import (
	"fmt"
	"runtime/debug"
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
