package module

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s has no go.mod: %v", root, err)
	}
	wd, _ := os.Getwd()
	if !strings.HasPrefix(wd, root) || filepath.Base(wd) != "module" {
		t.Errorf("root %s is not above the working directory %s", root, wd)
	}
}
