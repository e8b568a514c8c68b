package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter/integration/internal/conformance"
	"github.com/specter-mcp/specter/integration/internal/module"
)

// TestConformanceClient runs the client side of the official conformance
// suite against the conformance client program (built on package client
// and client/oauth) and requires zero failures and zero warnings: the
// 2025-11-25 and 2026-07-28 requirement sets (authorization included),
// the 2025-03-26 backwards-compatibility suite, the six authorization
// extensions and the four skills scenarios. Every scenario run must pass
// at least one check: a scenario with no check proves nothing.
func TestConformanceClient(t *testing.T) {
	if testing.Short() {
		t.Skip("the client suite takes about a minute; skipped with -short")
	}
	root, err := module.Root()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "conformance-client")
	build := exec.Command("go", "build", "-o", bin, "./integration/conformance/client")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the conformance client: %v\n%s", err, out)
	}
	runs := []conformanceRun{
		{"requirements-2025-11-25", []string{"--requirements", "2025-11-25"}},
		{"requirements-2026-07-28", []string{"--requirements", "2026-07-28"}},
		{"suite-backcompat", []string{"--suite", "backcompat"}},
		{"suite-extensions", []string{"--suite", "extensions"}},
	}
	for _, sc := range []string{"sep-2640-client-no-prefetch", "sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"} {
		runs = append(runs, conformanceRun{sc, []string{"--scenario", sc}})
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			res := requireClean(t, run.name)(conformance.RunClient(ctx, bin, run.args...))
			passed := map[string]int{}
			for _, c := range res.Checks {
				if c.Status == "SUCCESS" {
					passed[c.Scenario]++
				}
				if c.Status == "SKIPPED" && strings.HasPrefix(c.Scenario, "sep-2640-") {
					t.Errorf("skipped: %s", c)
				}
			}
			scenarios := []string{run.name} // a single scenario
			if run.args[0] != "--scenario" {
				if scenarios = scenarioLines(res.Output); len(scenarios) == 0 {
					t.Fatalf("the suite reported no scenario:\n%s", res.Output)
				}
			}
			for _, sc := range scenarios {
				if passed[sc] == 0 {
					t.Errorf("scenario %s passed no check", sc)
				}
			}
			t.Logf("%s: %d scenarios, each with passing checks", run.name, len(scenarios))
		})
	}
}

// scenarioLineRE matches a suite run's line per scenario.
var scenarioLineRE = regexp.MustCompile(`(?m)^[✓✗] (\S+): (\d+) passed, (\d+) failed`)

// scenarioLines returns the scenarios a suite run reports.
func scenarioLines(out string) []string {
	var names []string
	for _, m := range scenarioLineRE.FindAllStringSubmatch(out, -1) {
		if _, err := strconv.Atoi(m[2]); err == nil {
			names = append(names, m[1])
		}
	}
	return names
}
