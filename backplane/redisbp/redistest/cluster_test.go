package redistest

import (
	"strings"
	"testing"
)

// TestClusterRestart kills every node of a Cluster and restarts it: the
// Cluster re-forms with the same masters and slots, and brings back its
// data with append-only files, none without.
func TestClusterRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *Cluster
		want  string
	}{
		{"persistent", StartPersistentCluster, "kept"},
		{"empty", StartCluster, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.start(t)
			const key = "{k}"
			m := c.MasterOf(t, key)
			c.must(t, m, "SET", key, "kept")
			c.Stop()
			for _, s := range c.Nodes {
				if s.Running() {
					t.Fatalf("node %s runs after Stop", s.Addr)
				}
			}
			c.Restart(t)
			if now := c.MasterOf(t, key); now != m {
				t.Fatalf("the slot of %s moved from %s to %s", key, m.Addr, now.Addr)
			}
			got, err := c.Command(m, "GET", key)
			if err != nil || strings.TrimSpace(got) != tc.want {
				t.Fatalf("GET %s after the restart: %q %v, want %q", key, got, err, tc.want)
			}
		})
	}
}
