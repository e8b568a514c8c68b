package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCPUCapThrottles puts a process that spins into a cgroup capped at a
// tenth of a CPU and checks that the kernel holds it back, then that
// remove deletes the cgroup and hands the still running process back to
// the parent cgroup.
func TestCPUCapThrottles(t *testing.T) {
	c, err := newCPUCap(0.1)
	if err != nil {
		t.Skipf("cgroups not writable here: %v", err)
	}
	defer c.remove()
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = spin.Process.Kill(); _ = spin.Wait() }()
	if err := c.add(spin.Process.Pid); err != nil {
		t.Fatal(err)
	}
	procs, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	if pid := strconv.Itoa(spin.Process.Pid); !slices.Contains(strings.Fields(string(procs)), pid) {
		t.Fatalf("cgroup.procs = %q, want %s in it", procs, pid)
	}
	// A process that wants a whole CPU under a cap of a tenth is held
	// back in its very first period; the deadline only bounds a broken
	// cap.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		throttled, periods, err := c.throttled()
		if err != nil {
			t.Fatal(err)
		}
		if throttled > 0 && periods > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a spinning process under a 0.1 CPU cap was never throttled (%d periods)", periods)
		}
	}
	if err := c.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cgroup %s still there after remove: %v", c.dir, err)
	}
	// The process, still running, is back where it came from.
	where, err := os.ReadFile("/proc/" + strconv.Itoa(spin.Process.Pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(where), filepath.Base(c.dir)) {
		t.Errorf("the process is still in the removed cgroup: %s", where)
	}
}

func TestCFSQuota(t *testing.T) {
	for _, tc := range []struct {
		cpus          float64
		period, quota int64
	}{
		{0.15, 10_000, 1_500},
		{0.1, 10_000, 1_000},
		{1, 10_000, 10_000},
		{0.05, 20_000, 1_000}, // the quota stays at the kernel's 1 ms minimum
	} {
		period, quota, err := cfsQuota(tc.cpus)
		if err != nil || period != tc.period || quota != tc.quota {
			t.Errorf("cfsQuota(%g) = %d, %d, %v; want %d, %d", tc.cpus, period, quota, err, tc.period, tc.quota)
		}
	}
	for _, cpus := range []float64{0, -1, 1e6, 0.0001} {
		if _, _, err := cfsQuota(cpus); err == nil || !strings.Contains(err.Error(), "-redis-cpu") {
			t.Errorf("cfsQuota(%g) gave %v, want a -redis-cpu error", cpus, err)
		}
	}
}
