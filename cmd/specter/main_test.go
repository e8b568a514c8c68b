package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The binaries under test, built once for the package: the command and
// the example app it is run against.
var (
	specterBin string
	appBin     string
)

func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) != "" {
		// The test binary is also a stdio server for the tests that
		// need to see the server's side (cancellation).
		os.Exit(serveTestServer())
	}
	if os.Getenv(testBrowserEnv) != "" {
		os.Exit(runTestBrowser())
	}
	dir, err := os.MkdirTemp("", "specter-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	specterBin = filepath.Join(dir, "specter")
	appBin = filepath.Join(dir, "example_app")
	for bin, pkg := range map[string]string{specterBin: "github.com/specter-mcp/specter/cmd/specter", appBin: "github.com/specter-mcp/specter/example_app"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := 0
	func() {
		defer func() {
			if code == 0 {
				if err := goleak.Find(); err != nil {
					fmt.Fprintln(os.Stderr, err)
					code = 1
				}
			}
		}()
		code = m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is how a run of the command ended.
type result struct {
	stdout, stderr string
	code           int
}

// hermetic is the environment of a run: the user's configuration
// directory (where OAuth tokens are cached) is the test's own.
func hermetic(t *testing.T, env ...string) []string {
	home := t.TempDir()
	env = append(append(os.Environ(), env...), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	return env
}

// runSpecter runs the command with args and environment env (added to
// a hermetic one) and returns its output and exit status.
func runSpecter(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, specterBin, args...)
	cmd.Env = hermetic(t, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running specter %v: %v", args, err)
	}
	return r
}

// server names the example app for the command, in one transport and
// era.
type server struct {
	name string
	era  string
	env  []string
	// flags starts the server if it runs apart (HTTP) and returns the
	// flags that name it: --era and --url, or, last, -- and the stdio
	// command. The example app limits each caller's request rate, so an
	// HTTP test that makes many requests starts more than one app.
	flags func(t *testing.T) []string
}

// servers returns the example app over stdio and over HTTP, each in both
// eras, as the ultra user (who may call every tool).
func servers() []server {
	var ss []server
	for _, era := range []string{"stateless", "session"} {
		ss = append(ss,
			server{name: "stdio/" + era, era: era, env: []string{"SPECTER_USER=ultra"}, flags: func(*testing.T) []string {
				return []string{"--era", era, "--", appBin, "-stdio"}
			}},
			server{name: "http/" + era, era: era, flags: func(t *testing.T) []string {
				url, token := startHTTPApp(t)
				return []string{"--era", era, "--url", url, "--header", "Authorization=Bearer " + token}
			}},
		)
	}
	return ss
}

// startHTTPApp runs the example app on a free port until the test ends
// and returns its MCP endpoint and the ultra user's bearer token, read
// from its banner.
func startHTTPApp(t *testing.T) (url, token string) {
	t.Helper()
	cmd := exec.Command(appBin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SPECTER_JWT_SECRET=a test secret of at least 32 bytes!")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	ultra := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "MCP endpoint"):
			url = strings.TrimSpace(strings.TrimPrefix(line, "MCP endpoint"))
		case strings.HasPrefix(line, "ultra plan"):
			ultra = true
		case ultra && line != "":
			token, ultra = line, false
		}
		if url != "" && token != "" {
			break
		}
	}
	if url == "" || token == "" {
		t.Fatalf("no endpoint and token in the example app's banner; its log:\n%s", logs.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return url, token
}
