// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance) against a server from Go tests.
//
// The suite is an npm package pinned, together with the Node 22 it needs, in
// the harness folder integration/conformance of this module. Install it once
// with
//
//	npm ci --prefix integration/conformance
//
// (make test does). [Run] then starts
// `npx conformance server --url URL ...` in that folder and reports the
// outcome.
//
// # Reading the outcome
//
// The suite prints one of two summaries. A single scenario (--scenario)
// lists every check and closes with
//
//	Passed: 2/3, 1 failed, 0 warnings
//
// A suite run (no --scenario; --suite, --requirements) prints no checks,
// only a line per scenario and the closing line
//
//	Total: 36 passed, 28 failed
//
// which counts no WARNINGs at all: a scenario whose only problem is a
// WARNING shows as "✓ name: 1 passed, 0 failed". Run therefore also has the
// suite write its per-scenario checks.json files (-o) and counts warnings
// there. The project's bar is zero failures and zero warnings; see
// [Result.Clean].
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/specter-mcp/specter/integration/internal/module"
)

// DefaultTimeout bounds a Run whose context has no deadline. A full
// --suite all run takes well under a minute against a fast server, and
// each scenario has its own 30 s limit inside the suite.
const DefaultTimeout = 5 * time.Minute

// harnessDir is the harness folder, relative to the module root.
const harnessDir = "integration/conformance"

// Result is the outcome of one run of the suite.
type Result struct {
	// ExitCode is the suite's exit status: 1 when a counted scenario has a
	// FAILURE (with --expected-failures: an unexpected failure, warning or a
	// stale entry). Under --requirements, Failed may include scenarios the
	// revision does not score while ExitCode is 0.
	ExitCode int

	// Passed and Failed are the check counts of the closing summary line.
	// Warnings is the number of WARNING checks.
	Passed, Failed, Warnings int

	// Output is the suite's stdout and stderr, interleaved, with terminal
	// color codes removed.
	Output string

	// Checks lists every check the suite recorded, in scenario order.
	Checks []Check
}

// Check is one check as the suite records it in checks.json.
type Check struct {
	Scenario     string `json:"-"`
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string `json:"errorMessage"`
}

func (c Check) String() string {
	s := fmt.Sprintf("%s %s:%s", c.Status, c.Scenario, c.ID)
	if c.ErrorMessage != "" {
		s += ": " + c.ErrorMessage
	}
	return s
}

// Clean reports whether the run succeeded with no failures and no warnings,
// the project's bar. Under --requirements it is stricter than the exit code:
// failures of scenarios the revision does not score count too.
func (r *Result) Clean() bool {
	return r.ExitCode == 0 && r.Failed == 0 && r.Warnings == 0
}

// Problems returns the FAILURE and WARNING checks.
func (r *Result) Problems() []Check {
	var p []Check
	for _, c := range r.Checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			p = append(p, c)
		}
	}
	return p
}

// Run runs `npx conformance server --url url args...` in the harness folder
// and returns the parsed outcome. If ctx has no deadline, DefaultTimeout
// applies.
//
// A failing suite is not an error: Run returns an error only when the suite
// could not be run or gave no outcome (harness not installed, timeout, no
// summary line). A Result with whatever output there was accompanies
// errors after the suite started.
func Run(ctx context.Context, url string, args ...string) (*Result, error) {
	root, err := module.Root()
	if err != nil {
		return nil, err
	}
	return run(ctx, filepath.Join(root, filepath.FromSlash(harnessDir)), []string{"server", "--url", url}, "server-", args)
}

// RunClient runs `npx conformance client --command command args...`: the
// suite starts its scenario servers and runs command against each, with
// the server URL as the last argument. It reads the outcome as Run does.
func RunClient(ctx context.Context, command string, args ...string) (*Result, error) {
	root, err := module.Root()
	if err != nil {
		return nil, err
	}
	return run(ctx, filepath.Join(root, filepath.FromSlash(harnessDir)), []string{"client", "--command", command}, "", args)
}

func run(ctx context.Context, dir string, leg []string, prefix string, args []string) (*Result, error) {
	bin := filepath.Join(dir, "node_modules", ".bin", "conformance")
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("conformance: suite not installed (%v); run `npm ci --prefix %s` in the module root", err, harnessDir)
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}

	// Read checks from the caller's output directory if there is one, else
	// from a private one.
	outDir, userOut := outputDir(args)
	if !userOut {
		if outDir, err = os.MkdirTemp("", "conformance-"); err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		defer os.RemoveAll(outDir)
		args = append(args[:len(args):len(args)], "-o", outDir)
	} else if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(dir, outDir) // the suite runs in dir
	}
	before := entries(outDir)

	// --no keeps npx from fetching anything: the suite must be the pinned
	// one in node_modules. npx puts node_modules/.bin first on PATH, so the
	// suite runs under the pinned Node rather than the system's.
	cmdArgs := append(append([]string{"--no", "conformance"}, leg...), args...)
	cmd := exec.CommandContext(ctx, npx, cmdArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// npx runs the suite as a grandchild; kill the whole group on timeout,
	// and stop waiting for output a process left behind might still hold.
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second

	runErr := cmd.Run()
	res := &Result{Output: stripANSI(out.String()), ExitCode: -1}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("conformance: %w", ctx.Err())
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return res, fmt.Errorf("conformance: %w", runErr)
	}

	checks, err := readChecks(outDir, prefix, before)
	if err != nil {
		return res, err
	}
	res.Checks = checks
	s, ok := parseOutput(res.Output)
	if !ok {
		if res.ExitCode == 0 && skippedRE.MatchString(res.Output) {
			return res, nil // the scenario does not apply to --spec-version
		}
		return res, fmt.Errorf("conformance: no summary line in the output (exit code %d):\n%s", res.ExitCode, res.Output)
	}
	res.Passed, res.Failed, res.Warnings = s.passed, s.failed, s.warnings
	if len(checks) > 0 {
		// Authoritative: suite runs print no warnings at all.
		res.Warnings = 0
		for _, c := range checks {
			if c.Status == "WARNING" {
				res.Warnings++
			}
		}
	}
	return res, nil
}

// outputDir returns the value of a -o or --output-dir argument.
func outputDir(args []string) (string, bool) {
	for i, a := range args {
		switch {
		case (a == "-o" || a == "--output-dir") && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(a, "--output-dir="):
			return strings.TrimPrefix(a, "--output-dir="), true
		}
	}
	return "", false
}

// entries returns the names in dir, so that a reused output directory's
// earlier results are not counted again.
func entries(dir string) map[string]bool {
	names := make(map[string]bool)
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		names[de.Name()] = true
	}
	return names
}

// resultDirRE matches the directory the suite writes for each scenario:
// <prefix><scenario>-<ISO time with ':' and '.' replaced by '-'>, where
// the prefix is "server-" for server scenarios and empty for client ones.
// A client scenario named auth/x is written as auth/x-<time>.
var resultDirRE = regexp.MustCompile(`^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// readChecks reads the checks.json of every scenario directory in dir
// except those named in skip. The directories sort by name, that is by
// scenario and then time.
func readChecks(dir, prefix string, skip map[string]bool) ([]Check, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() != "checks.json" {
			return nil
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, nil // the suite wrote nothing, e.g. a skipped scenario
	}
	sort.Strings(names)
	var all []Check
	for _, name := range names {
		m := resultDirRE.FindStringSubmatch(name)
		if skip[strings.SplitN(name, "/", 2)[0]] || m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		m[1] = strings.TrimPrefix(m[1], prefix)
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name), "checks.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		var checks []Check
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, fmt.Errorf("conformance: %s: %w", name, err)
		}
		for i := range checks {
			checks[i].Scenario = m[1]
		}
		all = append(all, checks...)
	}
	return all, nil
}

var (
	ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

	// Closing line of a suite run. (The client suite appends warnings.)
	totalRE = regexp.MustCompile(`^Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings)?`)
	// Closing line of a single scenario.
	passedRE = regexp.MustCompile(`^Passed: (\d+)/\d+, (\d+) failed, (\d+) warnings`)
	// A check of a single scenario: "<time> [<id, padded>] <STATUS> <description>".
	checkRE = regexp.MustCompile(`^\S+ \[[^\]]*\] (SUCCESS|FAILURE|WARNING|SKIPPED|INFO)\b`)

	skippedRE = regexp.MustCompile(`(?m)^SKIPPED: scenario `)
)

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

type summary struct{ passed, failed, warnings int }

// parseOutput reads the counts from the suite's output, without color
// codes. It reports false if there is no closing line.
func parseOutput(out string) (summary, bool) {
	var s summary
	var found bool
	var total *summary
	warningLines := 0
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := totalRE.FindStringSubmatch(line); m != nil {
			t := summary{atoi(m[1]), atoi(m[2]), atoi(m[3])}
			total = &t
		} else if m := passedRE.FindStringSubmatch(line); m != nil {
			s = summary{atoi(m[1]), atoi(m[2]), atoi(m[3])}
			found = true
		} else if m := checkRE.FindStringSubmatch(line); m != nil && m[1] == "WARNING" {
			warningLines++
		}
	}
	if total != nil {
		// A suite run's own total wins over anything else in the output.
		s, found = *total, true
		s.warnings = max(s.warnings, warningLines)
	}
	return s, found
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s) // "" (an absent group) is 0
	return n
}
