package auth_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind, such as a
// JWK Set refresh that Close did not stop.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
