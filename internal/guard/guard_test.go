package guard

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		f     func()
		value any // nil: no panic
	}{
		{"returns", func() {}, nil},
		{"panics with a string", func() { panic("boom") }, "boom"},
		{"panics with an error", func() { panic(errors.ErrUnsupported) }, errors.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(tt.f)
			if tt.value == nil {
				if err != nil {
					t.Fatalf("Run = %v; want nil", err)
				}
				return
			}
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Value != tt.value {
				t.Fatalf("Run = %#v; want a PanicError of %v", err, tt.value)
			}
			if !strings.Contains(err.Error(), "guard_test.go") {
				t.Errorf("the error does not show where the panic happened:\n%s", err)
			}
		})
	}
}

func TestWithin(t *testing.T) {
	got, ok := Within(context.Background(), time.Hour, func(context.Context) int { return 7 })
	if got != 7 || !ok {
		t.Errorf("in time: %v %v", got, ok)
	}
	ended := make(chan error, 1)
	got, ok = Within(context.Background(), time.Millisecond, func(ctx context.Context) int {
		<-ctx.Done()
		ended <- ctx.Err()
		return 1
	})
	if got != 0 || ok {
		t.Errorf("past the limit: %v %v", got, ok)
	}
	if err := <-ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("f's context ended with %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, ok = Within(ctx, time.Hour, func(ctx context.Context) int { <-ctx.Done(); return 2 })
	if got != 2 || !ok {
		t.Errorf("the caller's cancellation: %v %v", got, ok)
	}
}

func TestErr(t *testing.T) {
	want := errors.New("refused")
	if err := Err(func() error { return want }); err != want {
		t.Errorf("an error: %v", err)
	}
	var pe *PanicError
	if err := Err(func() error { panic("boom") }); !errors.As(err, &pe) {
		t.Errorf("a panic: %v", err)
	}
	if err := Err(func() error { return nil }); err != nil {
		t.Errorf("no error: %v", err)
	}
}
