package redistest

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clusterTimeout bounds how long StartCluster waits for the Cluster to
// agree on its slots, and Failover for a replica to take over.
const clusterTimeout = 30 * time.Second

// NodeTimeout is the cluster-node-timeout of a Cluster's nodes: how long
// a master may be unreachable before its replica takes over.
const NodeTimeout = time.Second

// Cluster is a Redis Cluster of six real redis-server processes on
// loopback ports: three masters, each with one replica, as production
// runs it. Like Server it keeps nothing on disk but its nodes.conf files,
// unless StartPersistentCluster started it.
type Cluster struct {
	// URL names every node in go-redis's Cluster URL form,
	// redis://<addr>?addr=<addr>&…, as redisbp.New takes it.
	URL   string
	Nodes []*Server

	cli     string
	masters []*Server // the masters when Stop stopped the Cluster
}

// StartCluster starts six nodes with cluster-enabled, joins them with
// redis-cli --cluster create (one replica per master), waits until every
// node reports cluster_state:ok and knows all three masters, and stops
// them in t.Cleanup. It fails the test when redis-server or redis-cli is
// missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, nil)
}

// StartPersistentCluster is StartCluster with an append-only file on
// every node, synced on every write, so that Restart brings back what
// the Cluster held when it was killed.
func StartPersistentCluster(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, persistent)
}

func startCluster(t testing.TB, extra []string) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("redistest: the tests on a real Redis Cluster are skipped with -short")
	}
	c := &Cluster{cli: program(t, "REDIS_CLI", "redis-cli", "redis-tools")}
	extra = append([]string{
		"--cluster-enabled", "yes",
		"--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", fmt.Sprint(NodeTimeout.Milliseconds()),
		// A Cluster that lost a slot's master still serves the others.
		"--cluster-require-full-coverage", "no",
	}, extra...)
	addrs := make([]string, 6)
	for i := range addrs {
		s := start(t, extra)
		c.Nodes = append(c.Nodes, s)
		addrs[i] = s.Addr
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command(c.cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v: %s", err, out)
	}
	c.URL = "redis://" + addrs[0] + "?addr=" + strings.Join(addrs[1:], "&addr=")
	c.waitReady(t)
	return c
}

// waitReady polls every running node until each says cluster_state:ok
// with every slot served and sees three masters that serve slots, so
// that a client finds one slot map wherever it asks, and every replica
// is in sync.
func (c *Cluster) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(clusterTimeout)
	for {
		ready := true
		for _, s := range c.Nodes {
			if !s.Running() {
				continue
			}
			info, err := c.Command(s, "CLUSTER", "INFO")
			if err != nil || !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") {
				ready = false
				break
			}
			if len(c.mastersSeenBy(s)) != 3 {
				ready = false
				break
			}
			// A replica that never synced with its master cannot take
			// over from it.
			repl, err := c.Command(s, "INFO", "replication")
			if err != nil || strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
				ready = false
				break
			}
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the Cluster did not settle within %v", clusterTimeout)
		}
		time.Sleep(50 * time.Millisecond) // polling a process, not synchronizing goroutines
	}
}

// Command runs one command on node s with redis-cli and returns its
// output.
func (c *Cluster) Command(s *Server, args ...string) (string, error) {
	host, port := splitAddr(s.Addr)
	out, err := exec.Command(c.cli, append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("redis-cli %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Masters returns the masters that serve slots now, as the first
// running node sees them.
func (c *Cluster) Masters(t testing.TB) []*Server {
	t.Helper()
	for _, s := range c.Nodes {
		if s.Running() {
			return c.mastersSeenBy(s)
		}
	}
	t.Fatal("redistest: no node of the Cluster runs")
	return nil
}

// mastersSeenBy reads CLUSTER NODES on s: the masters that are not
// failed and hold slots.
func (c *Cluster) mastersSeenBy(s *Server) []*Server {
	out, err := c.Command(s, "CLUSTER", "NODES")
	if err != nil {
		return nil
	}
	var masters []*Server
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		// <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <state> <slots…>
		if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		for _, n := range c.Nodes {
			if n.Addr == addr {
				masters = append(masters, n)
			}
		}
	}
	return masters
}

// MasterOf returns the master serving key's slot now.
func (c *Cluster) MasterOf(t testing.TB, key string) *Server {
	t.Helper()
	m0 := c.Masters(t)[0]
	out, err := c.Command(m0, "CLUSTER", "KEYSLOT", key)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("redistest: CLUSTER KEYSLOT %s: %q", key, out)
	}
	nodes, err := c.Command(m0, "CLUSTER", "NODES")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(nodes, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.Contains(f[2], "master") {
			continue
		}
		for _, r := range f[8:] {
			lo, hi, found := strings.Cut(r, "-")
			if !found {
				hi = lo
			}
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && l <= slot && slot <= h {
				addr, _, _ := strings.Cut(f[1], "@")
				for _, n := range c.Nodes {
					if n.Addr == addr {
						return n
					}
				}
			}
		}
	}
	t.Fatalf("redistest: no master serves slot %d", slot)
	return nil
}

// Failover kills master m, as a crash would, and waits until a replica
// took over its slots (polling CLUSTER NODES on the others). It returns
// the new master.
func (c *Cluster) Failover(t testing.TB, m *Server) *Server {
	t.Helper()
	before := c.Masters(t)
	m.Stop()
	deadline := time.Now().Add(clusterTimeout)
	for {
		for _, s := range c.Nodes {
			if !s.Running() {
				continue
			}
			now := c.mastersSeenBy(s)
			if len(now) == 3 && !contains(now, m) {
				for _, n := range now {
					if !contains(before, n) {
						c.waitReady(t)
						return n
					}
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: no replica took over from %s within %v", m.Addr, clusterTimeout)
		}
		time.Sleep(50 * time.Millisecond) // polling a process, not synchronizing goroutines
	}
}

// Rejoin restarts node s, which keeps its place in the Cluster (a master
// that failed comes back as a replica), and waits until the Cluster
// settled again.
func (c *Cluster) Rejoin(t testing.TB, s *Server) {
	t.Helper()
	s.Restart(t)
	c.waitReady(t)
}

// Stop kills every node of the Cluster at once, as an outage of the
// whole Cluster does (a power cut, a kill -9 of every process), and
// remembers which were the masters. Stopping a stopped Cluster does
// nothing.
func (c *Cluster) Stop() {
	for _, s := range c.Nodes {
		if s.Running() {
			c.masters = c.mastersSeenBy(s)
			break
		}
	}
	var wg sync.WaitGroup
	for _, s := range c.Nodes {
		wg.Go(s.Stop)
	}
	wg.Wait()
}

// Restart starts every node again on its port, as after an outage of the
// whole Cluster, and waits until the Cluster is ready again. Each node
// keeps its nodes.conf, so the Cluster re-forms with the same masters and
// slots; with StartPersistentCluster each node reloads its append-only
// file and the data returns, else the Cluster comes back empty. The
// masters start first, so that no replica takes over from a master that
// is only slow to start. Restart stops a running Cluster first.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	c.Stop()
	order := append([]*Server(nil), c.masters...)
	for _, s := range c.Nodes {
		if !contains(order, s) {
			order = append(order, s)
		}
	}
	for _, s := range order {
		if err := s.start(); err != nil {
			t.Fatalf("redistest: restart the Cluster: %v", err)
		}
	}
	c.waitReady(t)
}

// Running reports whether the server runs.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil
}

func contains(list []*Server, s *Server) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func splitAddr(addr string) (host, port string) {
	i := strings.LastIndexByte(addr, ':')
	return addr[:i], addr[i+1:]
}

// Migration is a live migration of one slot from its master to another,
// as redis-cli --cluster reshard does it, a key at a time, so that a test
// can act between the steps.
type Migration struct {
	c        *Cluster
	slot     string
	from, to *Server
	fromID   string
	toID     string
}

// Migrate starts moving the slot of key to another master: the target
// imports it, the source marks it migrating. Move then moves its keys,
// and Finish hands the slot over.
func (c *Cluster) Migrate(t testing.TB, key string) *Migration {
	t.Helper()
	from := c.MasterOf(t, key)
	var to *Server
	for _, m := range c.Masters(t) {
		if m != from {
			to = m
			break
		}
	}
	m := &Migration{c: c, from: from, to: to, fromID: c.id(t, from), toID: c.id(t, to)}
	out, err := c.Command(from, "CLUSTER", "KEYSLOT", key)
	if err != nil {
		t.Fatal(err)
	}
	m.slot = strings.TrimSpace(out)
	c.must(t, to, "CLUSTER", "SETSLOT", m.slot, "IMPORTING", m.fromID)
	c.must(t, from, "CLUSTER", "SETSLOT", m.slot, "MIGRATING", m.toID)
	return m
}

// Move moves one key of the slot that is still on the source, and
// reports whether there was one.
func (m *Migration) Move(t testing.TB) bool {
	t.Helper()
	out, err := m.c.Command(m.from, "CLUSTER", "GETKEYSINSLOT", m.slot, "1")
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	if key == "" {
		return false
	}
	host, port := splitAddr(m.to.Addr)
	m.c.must(t, m.from, "MIGRATE", host, port, "", "0", "5000", "KEYS", key)
	return true
}

// Finish moves the keys left and gives the slot to the target on every
// master.
func (m *Migration) Finish(t testing.TB) {
	t.Helper()
	for m.Move(t) {
	}
	for _, s := range []*Server{m.to, m.from} {
		m.c.must(t, s, "CLUSTER", "SETSLOT", m.slot, "NODE", m.toID)
	}
	for _, s := range m.c.Masters(t) {
		if s != m.to && s != m.from {
			m.c.must(t, s, "CLUSTER", "SETSLOT", m.slot, "NODE", m.toID)
		}
	}
}

// id returns the Cluster node id of s.
func (c *Cluster) id(t testing.TB, s *Server) string {
	t.Helper()
	out, err := c.Command(s, "CLUSTER", "MYID")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// must runs a command on s that must answer OK.
func (c *Cluster) must(t testing.TB, s *Server, args ...string) {
	t.Helper()
	out, err := c.Command(s, args...)
	if err != nil || !strings.HasPrefix(strings.TrimSpace(out), "OK") {
		t.Fatalf("redistest: %s on %s: %q %v", strings.Join(args, " "), s.Addr, out, err)
	}
}
