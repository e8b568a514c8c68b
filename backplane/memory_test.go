package backplane_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

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

// BenchmarkMemoryTouchSession touches one session per goroutine from
// GOMAXPROCS goroutines, as session-era requests do: run with -cpu
// 1,2,4,8, ns/op falls with the cores unless the sessions share a lock.
func BenchmarkMemoryTouchSession(b *testing.B) {
	m := backplane.NewMemory()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		id := "s" + strconv.FormatInt(next.Add(1), 10)
		if err := m.CreateSession(b.Context(), &backplane.Session{ID: id, Version: "2025-11-25"}, time.Minute); err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			if err := m.TouchSession(b.Context(), id, time.Minute); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
