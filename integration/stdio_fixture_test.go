package integration

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The conformance fixture's command, built once for the tests that start
// it as a stdio subprocess, as desktop clients do.
var stdioFixture struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// stdioFixtureBin builds the fixture command (once) and returns its path.
func stdioFixtureBin(t testing.TB) string {
	t.Helper()
	f := &stdioFixture
	f.once.Do(func() {
		if f.dir, f.err = os.MkdirTemp("", "specter-stdio-"); f.err != nil {
			return
		}
		f.bin = filepath.Join(f.dir, "fixture")
		out, err := exec.Command("go", "build", "-o", f.bin, "./conformance/server").CombinedOutput()
		if err != nil {
			f.err = &buildError{err: err, out: string(out)}
		}
	})
	if f.err != nil {
		t.Fatalf("building the fixture command: %v", f.err)
	}
	return f.bin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func removeStdioFixture() {
	if stdioFixture.dir != "" {
		_ = os.RemoveAll(stdioFixture.dir)
	}
}

// stdioProc is the fixture started on stdio, with its stdout read line by
// line and its stderr kept.
type stdioProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, one line each; closed at EOF
	stderr *lockedBuffer
	exited chan struct{}
	start  time.Time
}

func startStdioFixture(t *testing.T, args ...string) *stdioProc {
	t.Helper()
	cmd := exec.Command(stdioFixtureBin(t), append([]string{"-stdio"}, args...)...)
	cmd.Env = append(os.Environ(), leakCheck)
	p := &stdioProc{t: t, cmd: cmd, lines: make(chan []byte, 256), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.start = time.Now()
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(p.lines)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			l, err := r.ReadBytes('\n')
			if len(l) > 0 {
				p.lines <- l
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		<-read // Wait closes stdout: read it all first
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
			t.Errorf("the fixture did not exit 10s after stdin closed")
		}
		if !noGoroutineLeft(p.stderr.String()) {
			t.Errorf("the fixture left goroutines at exit, or did not check:\n%s", p.stderr)
		}
	})
	return p
}

// leakCheck has the fixture check, once it served, that no goroutine is
// left (exit status 3 if one is).
const leakCheck = "SPECTER_LEAK_CHECK=1"

// noGoroutineLeft reports whether the fixture found no goroutine left
// at its exit.
func noGoroutineLeft(stderr string) bool {
	return strings.Contains(stderr, "no goroutine left at exit")
}

// exitedOnEOF reports whether the fixture logged that it exited because
// its stdin closed (and not on a signal).
func exitedOnEOF(stderr string) bool { return strings.Contains(stderr, "stdin closed; exiting") }
