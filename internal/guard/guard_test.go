package guard

import (
	"errors"
	"strings"
	"testing"
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
