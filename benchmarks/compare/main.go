// Command compare measures Specter against a bare Echo JSON handler, the
// official Go SDK and mcp-go, on the same tool and the same request bytes,
// and prints a Markdown table.
//
// Each server runs in a child process (this binary with -serve), so that
// the CPU it spends is read from /proc/<pid>/stat before and after each
// round, apart from the load generator's. Rounds are interleaved across
// the servers (A B C D, A B C D, …) so that whatever else the machine does
// falls on all of them alike, and the table shows each cell's median with
// the lowest and highest round. Memory per idle session is the VmRSS
// growth of a fresh child, after a forced collection, over K sessions,
// and again with a GET stream held open on each.
//
// It lives in a module of its own so that Specter's module does not
// depend on its peers. Run it from the repository root with `make compare`,
// or here with `go run .`; -h lists the knobs.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the harness's knobs.
type options struct {
	rounds      int
	round       time.Duration
	minCPU      time.Duration
	columns     []column
	concurrency int
	sessions    int
	// clientSessions is how many sessions each client's session-era
	// calls rotate over.
	clientSessions int
	only           []string // server names; empty: all
	cpuProfile     string   // directory for one CPU profile per server
	redisCPU       float64  // CPUs each redis-server is capped at; 0: none
}

func main() {
	var (
		serve    = flag.String("serve", "", "run the named server as a child (used by the harness itself)")
		redisURL = flag.String("redis", "", "with -serve: the Redis URL of the backplane")
		profile  = flag.String("cpuprofile", "", "with -serve: write a CPU profile to this file; otherwise: a directory for one profile per server (<name>.pprof)")
		only     = flag.String("only", "", "comma-separated servers to run (default all): "+serverNames())
		cols     = flag.String("columns", "session,stateless,create", "comma-separated columns to measure, e.g. stateless alone to profile it")
		o        options
	)
	flag.IntVar(&o.rounds, "rounds", 7, "interleaved rounds per column")
	flag.DurationVar(&o.round, "round", 500*time.Millisecond, "length of one round on one server")
	flag.DurationVar(&o.minCPU, "min-cpu", 300*time.Millisecond, "a round lasts until its server has spent at least this much CPU too (at most 10 rounds' length)")
	flag.IntVar(&o.concurrency, "c", 16, "concurrent clients, each on its own keep-alive connection")
	flag.IntVar(&o.sessions, "sessions", 2000, "sessions opened for the memory columns (0 skips them)")
	flag.IntVar(&o.clientSessions, "client-sessions", 1, "sessions each client's session-era calls rotate over: more spread the calls over a Redis Cluster's slots, as many users would")
	flag.Float64Var(&o.redisCPU, "redis-cpu", 0, "cap each redis-server process at this many CPUs (e.g. 0.15) with a Linux cgroup of its own, "+
		"so that Redis is the bottleneck and a Cluster's masters get 3× one Redis's CPU; needs root (0: no cap)")
	flag.Parse()

	if *serve != "" {
		if err := serveChild(*serve, *redisURL, *profile); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		return
	}
	o.cpuProfile = *profile
	if *only != "" {
		o.only = strings.Split(*only, ",")
	}
	var err error
	if o.columns, err = parseColumns(*cols); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	// Interrupted, the harness still removes the cgroups it made (the
	// redis-servers in them die with it).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		removeCPUCaps()
		fmt.Fprintln(os.Stderr, "compare:", s)
		os.Exit(1)
	}()
	if err := run(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func serverNames() string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.name
	}
	return strings.Join(names, ",")
}

// selected returns the servers o asks for, the baseline always first.
func (o options) selected() ([]server, error) {
	if len(o.only) == 0 {
		return servers, nil
	}
	picked := []server{servers[0]}
	for _, name := range o.only {
		s, ok := serverNamed(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("-only: no server %q (have %s)", name, serverNames())
		}
		if s.name != servers[0].name {
			picked = append(picked, s)
		}
	}
	return picked, nil
}

// run measures every selected server and writes the table to out, and
// its progress to log.
func run(o options, out, log io.Writer) error {
	srvs, err := o.selected()
	if err != nil {
		return err
	}
	if o.cpuProfile != "" {
		if err := os.MkdirAll(o.cpuProfile, 0o755); err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
	}
	started := time.Now()
	var rds redises
	for _, s := range srvs {
		at := &rds.one
		start := startRedis
		if s.cluster {
			at, start = &rds.cluster, startRedisCluster
		}
		if s.redis && *at == nil {
			if *at, err = start(o.redisCPU); err != nil {
				return err
			}
			defer (*at).stop()
		}
	}
	res := make([]rowResult, len(srvs))
	for i, s := range srvs {
		res[i].srv = s
	}
	if err := cpuRounds(o, srvs, rds, res, log); err != nil {
		return err
	}
	if o.sessions > 0 {
		for i, s := range srvs {
			if !s.sessions {
				continue
			}
			fmt.Fprintf(log, "memory: %s, %d sessions\n", s.name, o.sessions)
			if res[i].idle, res[i].stream, err = sessionMemory(s, rds.of(s).URL(), o.sessions); err != nil {
				return err
			}
		}
	}
	writeTable(out, o, res, started, time.Since(started))
	return nil
}

// redises are the Redis servers of the rows that need them.
type redises struct{ one, cluster *redisServer }

// of returns the Redis of s, nil for none.
func (r redises) of(s server) *redisServer {
	switch {
	case !s.redis:
		return nil
	case s.cluster:
		return r.cluster
	}
	return r.one
}

// rowResult is what the table shows for one server.
type rowResult struct {
	srv          server
	cells        [numColumns]summary
	idle, stream float64 // bytes per session, for servers that keep sessions
}

// cpuRounds starts a child per server and runs the interleaved rounds of
// every column.
func cpuRounds(o options, srvs []server, rds redises, res []rowResult, log io.Writer) error {
	children := make([]*child, 0, len(srvs))
	defer func() {
		for _, c := range children {
			if err := c.stop(); err != nil {
				fmt.Fprintf(log, "stopping %s: %v\n", c.srv.name, err)
			}
		}
	}()
	for _, s := range srvs {
		profile := ""
		if o.cpuProfile != "" {
			profile = filepath.Join(o.cpuProfile, s.name+".pprof")
		}
		c, err := startChild(s, rds.of(s).URL(), profile)
		if err != nil {
			return err
		}
		children = append(children, c)
	}
	for _, col := range o.columns {
		steps := make([][]func() error, len(children))
		for i, c := range children {
			client := newHTTPClient(o.concurrency)
			defer client.CloseIdleConnections()
			var err error
			if steps[i], err = workers(c, client, col, o.concurrency, o.clientSessions); err != nil {
				return err
			}
			if steps[i] == nil {
				continue
			}
			// Warm up connections, pools and lazily built state first.
			if _, _, err := drive(steps[i], o.round/4, nil); err != nil {
				return fmt.Errorf("%s warm-up: %w", c.srv.name, err)
			}
		}
		samples := make([][]sample, len(children))
		for round := range o.rounds {
			fmt.Fprintf(log, "%s: round %d of %d\n", col, round+1, o.rounds)
			for i, c := range children {
				if steps[i] == nil {
					continue
				}
				s, err := measure(c, rds.of(c.srv), steps[i], o.round, o.minCPU)
				if err != nil {
					return fmt.Errorf("%s, round %d: %w", col, round+1, err)
				}
				samples[i] = append(samples[i], s)
			}
		}
		for i, c := range children {
			res[i].cells[col] = summarize(samples[i])
			res[i].cells[col].onRedis = c.srv.redis
		}
	}
	return nil
}

// sessionMemory measures, in a fresh child, the VmRSS growth per idle
// session over n sessions, then with a GET stream open on each.
func sessionMemory(s server, redisURL string, n int) (idle, stream float64, err error) {
	c, err := startChild(s, redisURL, "")
	if err != nil {
		return 0, 0, err
	}
	defer c.stop()
	const workers = 8
	client := newHTTPClient(workers)
	url := c.url(s.sessionPath)
	// Warm up, so that the code and pools any session needs are in the
	// baseline, then close the connections: only sessions should remain.
	if _, err := openSessions(client, url, 200, workers); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", s.name, err)
	}
	settle(client)
	before, err := c.collect()
	if err != nil {
		return 0, 0, err
	}
	ids, err := openSessions(client, url, n, workers)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", s.name, err)
	}
	settle(client)
	afterIdle, err := c.collect()
	if err != nil {
		return 0, 0, err
	}
	conns, err := holdStreams(c.addr, s.sessionPath, ids)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", s.name, err)
	}
	defer func() {
		for _, conn := range conns {
			conn.Close()
		}
	}()
	afterStreams, err := c.collect()
	if err != nil {
		return 0, 0, err
	}
	return float64(afterIdle-before) / float64(n), float64(afterStreams-before) / float64(n), nil
}

// settle closes the client's connections and gives the server a moment to
// see them go, so that their buffers and goroutines are not counted.
func settle(client interface{ CloseIdleConnections() }) {
	client.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
}
