package main

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A column is one kind of work measured on every server.
type column int

const (
	colSession   column = iota // session-era tools/call
	colStateless               // 2026-07-28 tools/call
	colCreate                  // initialize + notifications/initialized
	numColumns
)

func (c column) String() string {
	return [...]string{"session-era tools/call", "2026-07-28 tools/call", "session create"}[c]
}

// columnFlags are the -columns names, in column order.
var columnFlags = [numColumns]string{"session", "stateless", "create"}

// parseColumns reads the -columns flag.
func parseColumns(s string) ([]column, error) {
	var cols []column
	for name := range strings.SplitSeq(s, ",") {
		i := slices.Index(columnFlags[:], strings.TrimSpace(name))
		if i < 0 {
			return nil, fmt.Errorf("-columns: no column %q (have %s)", name, strings.Join(columnFlags[:], ","))
		}
		cols = append(cols, column(i))
	}
	return cols, nil
}

// sample is one round of one column on one server.
type sample struct {
	perOp   time.Duration // server CPU per operation
	redisOp time.Duration // redis-server CPU per operation, if any
	opsPerS float64       // operations per second of wall time, at the round's concurrency
	cmdsOp  float64       // Redis commands executed per operation, if any
	// redisCPUs is the CPU redis-server spent per second of wall time,
	// all its processes together; throttled is the share of the capped
	// masters' CFS periods in which the cap held them back.
	redisCPUs, throttled float64
	// masterShare is each master's share of the commands executed, and
	// masterCPUs the CPU each master spent per second of wall time.
	masterShare, masterCPUs []float64
}

// workers returns the step each of n workers repeats for column col on
// c, or nil when c's server does not serve that wire. Session-era workers
// open their sessions here, once, perWorker each, and call them in turn.
func workers(c *child, client *http.Client, col column, n, perWorker int) ([]func() error, error) {
	steps := make([]func() error, n)
	switch col {
	case colSession:
		url := c.url(c.srv.sessionPath)
		for i := range steps {
			xs := make([]*exchange, max(perWorker, 1))
			for j := range xs {
				id, err := openSession(client, url, c.srv.sessions)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", c.srv.name, err)
				}
				if xs[j], err = newExchange(client, url, sessionHeader(id), sessionCallBody, http.StatusOK, wantText); err != nil {
					return nil, err
				}
			}
			next := 0
			steps[i] = func() error {
				x := xs[next]
				next = (next + 1) % len(xs)
				_, err := x.do()
				return err
			}
		}
	case colStateless:
		if c.srv.statelessPath == "" {
			return nil, nil
		}
		for i := range steps {
			x, err := newExchange(client, c.url(c.srv.statelessPath), statelessHeader(), statelessCallBody, http.StatusOK, wantText)
			if err != nil {
				return nil, err
			}
			steps[i] = func() error { _, err := x.do(); return err }
		}
	case colCreate:
		url := c.url(c.srv.sessionPath)
		for i := range steps {
			steps[i] = func() error { _, err := openSession(client, url, c.srv.sessions); return err }
		}
	}
	return steps, nil
}

// drive runs every step in a loop of its own until d has passed and
// enough (if not nil) reports true, or 10 d have passed, and returns how
// many steps ran. The first error stops the round and is returned.
func drive(steps []func() error, d time.Duration, enough func() bool) (int64, time.Duration, error) {
	var (
		ops      atomic.Int64
		stop     atomic.Bool
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	start := time.Now()
	for _, step := range steps {
		wg.Go(func() {
			for !stop.Load() {
				if err := step(); err != nil {
					once.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				ops.Add(1)
			}
		})
	}
	time.Sleep(d)
	for limit := start.Add(10 * d); enough != nil && !stop.Load() && !enough() && time.Now().Before(limit); {
		time.Sleep(20 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	return ops.Load(), time.Since(start), firstErr
}

// measure runs one round on c and reads the CPU that c (and Redis, when
// rds is set) spent on it from /proc. The round lasts d, and longer if
// need be until c has spent minCPU: /proc counts in 10 ms ticks, and on a
// busy machine a short round may get few of them.
func measure(c *child, rds *redisServer, steps []func() error, d, minCPU time.Duration) (sample, error) {
	t0, r0, err := ticks(c, rds)
	if err != nil {
		return sample{}, err
	}
	var (
		cmds0, cpu0      []int64
		throttled0, per0 int64
	)
	if rds != nil {
		if cmds0, err = rds.commands(); err != nil {
			return sample{}, err
		}
		if cpu0, err = rds.masterCPU(); err != nil {
			return sample{}, err
		}
		if throttled0, per0, err = rds.throttled(); err != nil {
			return sample{}, err
		}
	}
	minTicks := int64(minCPU / (time.Second / ticksPerSecond))
	enough := func() bool {
		t, err := cpuTicks(c.pid())
		return err != nil || t-t0 >= minTicks
	}
	ops, elapsed, err := drive(steps, d, enough)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", c.srv.name, err)
	}
	t1, r1, err := ticks(c, rds)
	if err != nil {
		return sample{}, err
	}
	if ops == 0 {
		return sample{}, fmt.Errorf("%s: no request completed in %v", c.srv.name, d)
	}
	tick := time.Second / ticksPerSecond
	s := sample{
		perOp:     time.Duration(t1-t0) * tick / time.Duration(ops),
		redisOp:   time.Duration(r1-r0) * tick / time.Duration(ops),
		opsPerS:   float64(ops) / elapsed.Seconds(),
		redisCPUs: (time.Duration(r1-r0) * tick).Seconds() / elapsed.Seconds(),
	}
	if rds == nil {
		return s, nil
	}
	cmds1, err := rds.commands()
	if err != nil {
		return sample{}, err
	}
	throttled1, per1, err := rds.throttled()
	if err != nil {
		return sample{}, err
	}
	cpu1, err := rds.masterCPU()
	if err != nil {
		return sample{}, err
	}
	for i := range cpu1 {
		s.masterCPUs = append(s.masterCPUs, time.Duration(cpu1[i]-cpu0[i]).Seconds()/elapsed.Seconds())
	}
	var cmds int64
	for i := range cmds1 {
		cmds += cmds1[i] - cmds0[i]
	}
	s.cmdsOp = float64(cmds) / float64(ops)
	if cmds > 0 {
		for i := range cmds1 {
			s.masterShare = append(s.masterShare, float64(cmds1[i]-cmds0[i])/float64(cmds))
		}
	}
	if per1 > per0 {
		s.throttled = float64(throttled1-throttled0) / float64(per1-per0)
	}
	return s, nil
}

// ticks reads the CPU time of c and of rds, 0 when rds is nil.
func ticks(c *child, rds *redisServer) (own, redis int64, err error) {
	if own, err = cpuTicks(c.pid()); err != nil || rds == nil {
		return own, 0, err
	}
	redis, err = rds.cpuTicks()
	return own, redis, err
}

// summary is the median and spread of a cell's rounds.
type summary struct {
	perOp, lo, hi time.Duration
	redisOp       time.Duration
	opsPerS       float64
	cmdsOp        float64   // Redis commands per operation
	redisCPUs     float64   // redis-server CPU per second of wall time
	throttled     float64   // share of the capped masters' periods held back
	masterShare   []float64 // medians per master
	masterCPUs    []float64
	onRedis       bool // the server's backplane is Redis
	ran, na       bool // measured; not served by this server
}

func summarize(samples []sample) summary {
	if len(samples) == 0 {
		return summary{ran: true, na: true}
	}
	by := func(f func(sample) float64) float64 {
		v := make([]float64, len(samples))
		for i, s := range samples {
			v[i] = f(s)
		}
		sort.Float64s(v)
		return median(v)
	}
	s := summary{
		ran:     true,
		perOp:   time.Duration(by(func(s sample) float64 { return float64(s.perOp) })),
		redisOp: time.Duration(by(func(s sample) float64 { return float64(s.redisOp) })),
		opsPerS: by(func(s sample) float64 { return s.opsPerS }),
		cmdsOp:  by(func(s sample) float64 { return s.cmdsOp }),
		lo:      samples[0].perOp, hi: samples[0].perOp,

		redisCPUs: by(func(s sample) float64 { return s.redisCPUs }),
		throttled: by(func(s sample) float64 { return s.throttled }),
	}
	s.masterShare = perMaster(samples, func(s sample) []float64 { return s.masterShare })
	s.masterCPUs = perMaster(samples, func(s sample) []float64 { return s.masterCPUs })
	for _, x := range samples {
		s.lo, s.hi = min(s.lo, x.perOp), max(s.hi, x.perOp)
	}
	return s
}

// perMaster returns the median over the samples of each master's value,
// as field reads it, nil when the samples have none.
func perMaster(samples []sample, field func(sample) []float64) []float64 {
	var m []float64
	for i := range field(samples[0]) {
		v := make([]float64, 0, len(samples))
		for _, s := range samples {
			if f := field(s); i < len(f) {
				v = append(v, f[i])
			}
		}
		sort.Float64s(v)
		m = append(m, median(v))
	}
	return m
}

// median of sorted values.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
