package task

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves an Ask waiting.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
