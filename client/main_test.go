package client_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) != "" {
		runStdioServer()
	}
	goleak.VerifyTestMain(m)
}
