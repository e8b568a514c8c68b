package backplane_test

import (
	"testing"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/backplanetest"
)

func TestMemoryContract(t *testing.T) {
	backplanetest.Run(t, func(*testing.T) (backplane.Backplane, backplane.Backplane) {
		m := backplane.NewMemory()
		return m, m
	})
}

func TestMemorySharing(t *testing.T) {
	if got := backplane.NewMemory().Sharing(); got != backplane.InProcess || got.String() != "in-process" {
		t.Errorf("Sharing() = %v (%d), want in-process", got, got)
	}
	if got := backplane.Shared.String(); got != "shared" {
		t.Errorf("Shared.String() = %q", got)
	}
}
