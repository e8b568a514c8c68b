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
