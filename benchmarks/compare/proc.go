package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// ticksPerSecond is Linux's USER_HZ, the unit of utime and stime in
// /proc/<pid>/stat; it is 100 on every architecture Go supports there.
const ticksPerSecond = 100

// cpuTicks returns the user plus system CPU time of process pid, all its
// threads, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// count fields after its closing one. utime and stime are fields 14
	// and 15, so the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err := strconv.ParseInt(string(f[11]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat utime: %w", pid, err)
	}
	stime, err := strconv.ParseInt(string(f[12]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat stime: %w", pid, err)
	}
	return utime + stime, nil
}

// rssBytes returns VmRSS of process pid.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest) // "1234", "kB"
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("/proc/%d/status: VmRSS %q", pid, line)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/status VmRSS: %w", pid, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// cpuNanos returns the CPU time of process pid, all its threads, in
// nanoseconds, from each thread's schedstat: finer than cpuTicks, for a
// process that gets only a few ticks a round (a capped redis-server).
func cpuNanos(pid int) (int64, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if errors.Is(err, fs.ErrNotExist) {
			continue // a thread that ended meanwhile
		}
		if err != nil {
			return 0, err
		}
		f := bytes.Fields(b) // run time, wait time, timeslices
		if len(f) != 3 {
			return 0, fmt.Errorf("%s/%s/schedstat: %q", dir, t.Name(), b)
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s/%s/schedstat: %w", dir, t.Name(), err)
		}
		sum += n
	}
	return sum, nil
}
