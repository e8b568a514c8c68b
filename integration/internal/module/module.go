// Package module finds the root of the Go module the tests run in, where
// the conformance harness lives and beside which shared/ sits.
package module

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root returns the nearest directory at or above the working directory
// that contains a go.mod file.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module: no go.mod found above the working directory")
		}
		dir = parent
	}
}
