package integration

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/integration/internal/conformance"
)

// TestConformance runs the official MCP conformance suite against the
// fixture server, one process serving both protocol eras, and requires
// zero failures and zero warnings: the 2025-11-25 and 2026-07-28
// requirement sets (the latter including the tasks extension), every
// shared scenario on the 2026-07-28 wire, and the pending suite. It needs the pinned harness (npm ci --prefix
// integration/conformance, which make test runs).
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes about a minute; skipped with -short")
	}
	runConformance(t, fixture.New(quiet), conformanceRuns)
}

// TestConformanceRedis runs the session scenarios again with the fixture
// on the Redis backplane.
func TestConformanceRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	redis := redistest.Start(t)
	bp, err := redisbp.New(context.Background(), redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer bp.Close()
	runConformance(t, fixture.New(quiet, specter.Backplane(bp)), []conformanceRun{
		{"requirements-2025-11-25", []string{"--requirements", "2025-11-25"}},
		{"server-sse-polling", []string{"--scenario", "server-sse-polling"}},
		{"server-session-lifecycle", []string{"--scenario", "server-session-lifecycle"}},
	})
}

// TestConformanceCluster runs the session scenarios against three
// fixture nodes on a 6-node Redis Cluster (3 masters, 3 replicas), behind
// a reverse proxy that sends each request to the next node in turn, with
// no stickiness: every request of a session may land on another node.
func TestConformanceCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster; skipped with -short")
	}
	c := redistest.StartCluster(t)
	nodes := newCluster(t, c.URL, 3, nil)
	runConformanceAt(t, roundRobin(t, nodes)+"/mcp", []conformanceRun{
		{"requirements-2025-11-25", []string{"--requirements", "2025-11-25"}},
		{"server-sse-polling", []string{"--scenario", "server-sse-polling"}},
		{"server-session-lifecycle", []string{"--scenario", "server-session-lifecycle"}},
	})
}

type conformanceRun struct {
	name string
	args []string
}

// mustRun names, per run, the scenarios that must record checks and skip
// none: the skills scenarios skip every check, and so fail none, when the
// fixture stops declaring the extension.
var mustRun = map[string][]string{
	"suite-pending": {"sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"},
}

var conformanceRuns = []conformanceRun{
	{"requirements-2025-11-25", []string{"--requirements", "2025-11-25"}},
	{"requirements-2026-07-28", []string{"--requirements", "2026-07-28"}},
	{"suite-all-2026-07-28", []string{"--suite", "all", "--spec-version", "2026-07-28"}},
	{"suite-pending", []string{"--suite", "pending"}},
	{"json-schema-2020-12", []string{"--scenario", "json-schema-2020-12", "--spec-version", "2025-11-25"}},
	{"server-sse-polling", []string{"--scenario", "server-sse-polling"}},
	{"server-session-lifecycle", []string{"--scenario", "server-session-lifecycle"}},
}

// requireClean returns a check of a suite run's outcome: it logs the
// counts and stops the test unless the run ended with no failure and no
// warning.
func requireClean(t *testing.T, name string) func(*conformance.Result, error) *conformance.Result {
	return func(res *conformance.Result, err error) *conformance.Result {
		t.Helper()
		if err != nil {
			if res != nil {
				t.Log(res.Output)
			}
			t.Fatal(err)
		}
		t.Logf("%s: exit %d, %d passed, %d failed, %d warnings", name, res.ExitCode, res.Passed, res.Failed, res.Warnings)
		if !res.Clean() {
			var lines []string
			for _, p := range res.Problems() {
				lines = append(lines, p.String())
			}
			t.Fatalf("conformance is not clean:\n%s\n\n%s", strings.Join(lines, "\n"), res.Output)
		}
		return res
	}
}

func runConformance(t *testing.T, r *specter.Router, runs []conformanceRun) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", r.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.Close()
	})
	runConformanceAt(t, srv.URL+"/mcp", runs)
}

// runConformanceAt runs the suite against the MCP endpoint at url.
func runConformanceAt(t *testing.T, url string, runs []conformanceRun) {
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			res := requireClean(t, run.name)(conformance.Run(ctx, url, run.args...))
			if res.Passed == 0 {
				t.Fatal("no check passed: the suite did not run")
			}
			ran := map[string]bool{}
			for _, c := range res.Checks {
				ran[c.Scenario] = true
				if c.Status == "SKIPPED" && slices.Contains(mustRun[run.name], c.Scenario) {
					t.Errorf("skipped: %s", c)
				}
			}
			for _, sc := range mustRun[run.name] {
				if !ran[sc] {
					t.Errorf("scenario %s recorded no check", sc)
				}
			}
		})
	}
}
