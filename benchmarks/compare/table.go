package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// writeTable prints the results as Markdown: the machine, the method, and
// one row per server.
func writeTable(w io.Writer, o options, res []rowResult, started time.Time, took time.Duration) {
	fmt.Fprintf(w, "Machine: %d cores, %s, %s %s/%s. Run: %s, %s.\n\n",
		runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		started.UTC().Format("2006-01-02 15:04 MST"), took.Round(time.Second))
	fmt.Fprintf(w, "Server CPU per operation (from /proc/<pid>/stat), as a multiple of the bare Echo handler's, "+
		"median of %d interleaved rounds of %v at c=%d (lowest–highest round in brackets), and operations per second; "+
		"the session-era calls go to %d sessions. Memory: VmRSS growth per session over %d sessions after a forced GC.\n\n",
		o.rounds, o.round, o.concurrency, o.concurrency*max(o.clientSessions, 1), o.sessions)
	if o.redisCPU > 0 {
		fmt.Fprintf(w, "**Redis capped:** each redis-server process ran in a Linux cgroup of its own capped at %g CPU (CFS quota), "+
			"so that Redis, not Specter or the load generator, limits throughput, and a Cluster's 3 masters have 3× the CPU of one Redis. "+
			"The Redis cells give redis-server's CPU per request, the CPU it used per second, and the share of the masters' 10 ms quota periods in which the cap held them back.\n\n",
			o.redisCPU)
	}
	fmt.Fprintln(w, "| server | tools/call, session era (2025-11-25) | tools/call, 2026-07-28 | session create (initialize + initialized) | idle session | idle session + GET stream |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	base := res[0].cells
	for _, r := range res {
		fmt.Fprintf(w, "| %s |", r.srv.label)
		for col := range numColumns {
			fmt.Fprintf(w, " %s |", cell(r.cells[col], base[col], col == colCreate, o.redisCPU > 0))
		}
		switch {
		case !r.srv.sessions:
			fmt.Fprintln(w, " n/a | n/a |")
		case o.sessions == 0:
			fmt.Fprintln(w, " not run | not run |")
		default:
			// A server that keeps its sessions elsewhere (Redis) may well
			// grow by 0 bytes: that is a measurement too.
			fmt.Fprintf(w, " %s | %s |\n", kib(r.idle), kib(r.stream))
		}
	}
	fmt.Fprintln(w)
	for _, r := range res {
		if r.srv.note != "" {
			fmt.Fprintf(w, "- %s.\n", r.srv.note)
		}
	}
	if mem, rds, ok := rowsNamed(res, "specter", "specter-redis"); ok && mem.cells[colSession].opsPerS > 0 && rds.cells[colSession].opsPerS > 0 {
		fmt.Fprintf(w, "- Specter with sessions on Redis serves %.2f× the session-era tools/call throughput of the in-memory router, "+
			"at %.2f× its CPU per call (plus redis-server's own).\n",
			rds.cells[colSession].opsPerS/mem.cells[colSession].opsPerS,
			float64(rds.cells[colSession].perOp)/float64(mem.cells[colSession].perOp))
	}
	if one, cl, ok := rowsNamed(res, "specter-redis", "specter-cluster"); ok && one.cells[colSession].opsPerS > 0 {
		on := fmt.Sprintf("all on this machine's %d cores", runtime.NumCPU())
		if o.redisCPU > 0 {
			on = fmt.Sprintf("each redis-server capped at %g CPU, on this machine's %d cores", o.redisCPU, runtime.NumCPU())
		}
		fmt.Fprintf(w, "- On the 3-master Cluster Specter serves %.2f× the session-era tools/call throughput of one Redis (%s).\n",
			cl.cells[colSession].opsPerS/one.cells[colSession].opsPerS, on)
	}
	for _, r := range res {
		if !r.srv.cluster {
			continue
		}
		for _, col := range o.columns {
			c := r.cells[col]
			if len(c.masterShare) < 2 || c.cmdsOp < 0.01 {
				continue // 2026-07-28 calls: only the backplane's own few commands
			}
			capped := ""
			if o.redisCPU > 0 {
				capped = fmt.Sprintf(", each capped at %g", o.redisCPU)
			}
			fmt.Fprintf(w, "- %s, %s: the masters executed %s of the commands and used %s CPU%s (medians per master).\n",
				r.srv.label, col, percents(c.masterShare), cpus(c.masterCPUs), capped)
		}
	}
}

// cpus formats CPU shares as "0.046 / 0.045 / 0.043".
func cpus(v []float64) string {
	p := make([]string, len(v))
	for i, x := range v {
		p[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(p, " / ")
}

// percents formats shares as "34% / 33% / 33%".
func percents(shares []float64) string {
	p := make([]string, len(shares))
	for i, s := range shares {
		p[i] = fmt.Sprintf("%.0f%%", 100*s)
	}
	return strings.Join(p, " / ")
}

// rowsNamed returns the rows of servers a and b, if both ran.
func rowsNamed(res []rowResult, a, b string) (ra, rb rowResult, ok bool) {
	var okA, okB bool
	for _, r := range res {
		switch r.srv.name {
		case a:
			ra, okA = r, true
		case b:
			rb, okB = r, true
		}
	}
	return ra, rb, okA && okB
}

// cell formats one summary against the baseline's.
func cell(s, base summary, perSession, capped bool) string {
	switch {
	case !s.ran:
		return "not run"
	case s.na:
		return "n/a"
	}
	unit := "req/s"
	if perSession {
		unit = "sessions/s"
	}
	var b strings.Builder
	if !base.na && base.perOp > 0 {
		fmt.Fprintf(&b, "**%.1f×** ", float64(s.perOp)/float64(base.perOp))
	}
	fmt.Fprintf(&b, "%s (%.0f–%s), %s %s", micros(s.perOp), float64(s.lo)/float64(time.Microsecond), micros(s.hi), thousands(s.opsPerS), unit)
	if s.onRedis {
		fmt.Fprintf(&b, "; redis-server +%s, using %.2f CPU", micros(s.redisOp), s.redisCPUs)
		if capped {
			fmt.Fprintf(&b, ", throttled in %.0f%% of periods", 100*s.throttled)
		}
		fmt.Fprintf(&b, ", %.2f Redis commands per request (INFO commandstats)", s.cmdsOp)
	}
	return b.String()
}

func micros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func kib(bytes float64) string {
	return fmt.Sprintf("%.1f KiB", bytes/1024)
}

// thousands formats v rounded, with comma separators.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
