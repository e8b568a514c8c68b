package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cgroupPrefix names the cgroups this harness creates, with its pid and a
// counter after it, so that those a killed harness left behind can be
// recognised and removed by the next run.
const cgroupPrefix = "specter-compare-"

// cgroupRoots are where the cgroup CPU controllers are mounted: cgroup v1's
// cpu hierarchy (under either of the names distributions give it), and the
// cgroup v2 unified hierarchy.
var cgroupRoots = struct{ v1, v2 []string }{
	v1: []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"},
	v2: []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"},
}

// A cpuCap is a Linux cgroup of its own that holds the processes added to
// it to a share of one CPU: with a cap of 0.15 they run, together, at most
// 1.5 ms of every 10 ms. The harness gives each redis-server its own, so
// that every Redis master gets the same CPU and Redis, not Specter or the
// load generator, is what limits throughput on a machine with few cores.
type cpuCap struct {
	dir    string  // the cgroup's directory
	parent string  // where its processes go back to when it is removed
	cpus   float64 // the cap, in CPUs
	v2     bool    // cgroup v2: cpu.max rather than cpu.cfs_quota_us
}

var cgroupSeq struct {
	sync.Mutex
	n    int
	live map[*cpuCap]bool // for removeCPUCaps on a signal
}

// newCPUCap creates a cgroup that caps its processes at cpus CPUs.
func newCPUCap(cpus float64) (*cpuCap, error) {
	period, quota, err := cfsQuota(cpus)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("-redis-cpu caps redis-server with a Linux cgroup, and this is %s", runtime.GOOS)
	}
	root, v2, err := cgroupRoot()
	if err != nil {
		return nil, err
	}
	removeStaleCPUCaps(root)
	if v2 {
		// The cpu controller must be enabled for the root's children.
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu"), 0); err != nil {
			return nil, fmt.Errorf("-redis-cpu: enabling the cpu controller for the children of %s (needs root, and a cgroup v2 root that may delegate it): %w", root, err)
		}
	}
	cgroupSeq.Lock()
	cgroupSeq.n++
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cgroupSeq.n)
	cgroupSeq.Unlock()
	c := &cpuCap{dir: filepath.Join(root, name), parent: root, cpus: cpus, v2: v2}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("-redis-cpu: creating cgroup %s (run as root): %w", c.dir, err)
	}
	if v2 {
		err = writeCgroup(c.dir, "cpu.max", fmt.Sprintf("%d %d", quota, period))
	} else {
		// The period first: a quota larger than the old period is fine,
		// but the kernel checks the pair on each write.
		err = writeCgroup(c.dir, "cpu.cfs_period_us", strconv.FormatInt(period, 10))
		if err == nil {
			err = writeCgroup(c.dir, "cpu.cfs_quota_us", strconv.FormatInt(quota, 10))
		}
	}
	if err != nil {
		_ = os.Remove(c.dir)
		return nil, err
	}
	cgroupSeq.Lock()
	if cgroupSeq.live == nil {
		cgroupSeq.live = make(map[*cpuCap]bool)
	}
	cgroupSeq.live[c] = true
	cgroupSeq.Unlock()
	return c, nil
}

// cfsQuota turns a cap in CPUs into a CFS period and quota, in µs. The
// period is 10 ms, short enough that a capped Redis pauses for at most a
// few milliseconds at a time rather than for most of the kernel's default
// 100 ms; it grows for caps so small that the quota would fall under the
// kernel's 1 ms minimum.
func cfsQuota(cpus float64) (period, quota int64, err error) {
	if !(cpus > 0) || cpus > float64(runtime.NumCPU()) {
		return 0, 0, fmt.Errorf("-redis-cpu %g: want a share of the CPU in (0, %d]", cpus, runtime.NumCPU())
	}
	const minQuota = 1000 // µs
	period = 10_000
	if q := cpus * float64(period); q < minQuota {
		period = int64(minQuota/cpus + 0.5)
	}
	if period > 1_000_000 { // the kernel's largest period
		return 0, 0, fmt.Errorf("-redis-cpu %g: below the smallest cap a cgroup can hold (0.001)", cpus)
	}
	return period, int64(cpus*float64(period) + 0.5), nil
}

// cgroupRoot finds a writable-looking CPU controller: cgroup v1's cpu
// hierarchy, or a cgroup v2 hierarchy that offers the cpu controller.
func cgroupRoot() (dir string, v2 bool, err error) {
	for _, d := range cgroupRoots.v1 {
		if _, err := os.Stat(filepath.Join(d, "cpu.cfs_quota_us")); err == nil {
			return d, false, nil
		}
	}
	for _, d := range cgroupRoots.v2 {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.controllers"))
		if err == nil && strings.Contains(" "+strings.TrimSpace(string(b))+" ", " cpu ") {
			return d, true, nil
		}
	}
	return "", false, fmt.Errorf("-redis-cpu: no cgroup cpu controller found (cgroup v1 at %s, or v2 with cpu in cgroup.controllers at %s)",
		strings.Join(cgroupRoots.v1, " or "), strings.Join(cgroupRoots.v2, " or "))
}

func writeCgroup(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
		return fmt.Errorf("-redis-cpu: writing %q to %s: %w", value, filepath.Join(dir, file), err)
	}
	return nil
}

// add moves process pid, all its threads, into the cgroup.
func (c *cpuCap) add(pid int) error {
	return writeCgroup(c.dir, "cgroup.procs", strconv.Itoa(pid))
}

// throttled returns how many of the cgroup's CFS periods so far its
// processes wanted more CPU than the cap gave them, and how many periods
// they ran in.
func (c *cpuCap) throttled() (throttled, periods int64, err error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "cpu.stat"))
	if err != nil {
		return 0, 0, fmt.Errorf("cgroup cpu.stat: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "nr_throttled":
			throttled = n
		case "nr_periods":
			periods = n
		}
	}
	return throttled, periods, nil
}

// remove moves whatever processes are still in the cgroup back to its
// parent and deletes it.
func (c *cpuCap) remove() error {
	cgroupSeq.Lock()
	delete(cgroupSeq.live, c)
	cgroupSeq.Unlock()
	if b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs")); err == nil {
		for pid := range strings.FieldsSeq(string(b)) {
			// A process that exits meanwhile is no longer in the way.
			_ = os.WriteFile(filepath.Join(c.parent, "cgroup.procs"), []byte(pid), 0)
		}
	}
	// A process killed just before may take a moment to leave it.
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err = os.Remove(c.dir); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("removing cgroup %s: %w", c.dir, err)
		}
	}
}

// removeCPUCaps removes every cgroup this process still holds, for a
// harness stopped by a signal.
func removeCPUCaps() {
	cgroupSeq.Lock()
	live := make([]*cpuCap, 0, len(cgroupSeq.live))
	for c := range cgroupSeq.live {
		live = append(live, c)
	}
	cgroupSeq.Unlock()
	for _, c := range live {
		_ = c.remove()
	}
}

// removeStaleCPUCaps deletes the empty cgroups that earlier harnesses,
// since gone, left under root (a harness killed by SIGKILL cannot clean
// up).
func removeStaleCPUCaps(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		if _, err := os.Stat("/proc/" + pid); err == nil {
			continue // its harness still runs
		}
		_ = os.Remove(filepath.Join(root, e.Name())) // fails, harmlessly, if not empty
	}
}
