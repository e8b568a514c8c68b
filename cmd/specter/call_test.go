package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestCallProgress calls the example app's long_task over stdio and
// HTTP in both eras: its progress and logs stream to standard error as
// they come, its result to standard output.
func TestCallProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command against the example app")
	}
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			r := runSpecter(t, s.env, append([]string{"call", "long_task", "steps=3"}, s.flags(t)...)...)
			if r.code != 0 {
				t.Fatalf("call exited %d; stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, `"steps":3`) {
				t.Errorf("stdout %q lacks the result", r.stdout)
			}
			for i, want := range []string{"progress 1/3 step 1 of 3", "INFO long_task finished step 1 of 3", "progress 3/3 step 3 of 3", "INFO long_task finished step 3 of 3"} {
				if !strings.Contains(r.stderr, want+"\n") {
					t.Errorf("stderr lacks line %d %q:\n%s", i, want, r.stderr)
				}
			}
			if strings.Index(r.stderr, "progress 1/3") > strings.Index(r.stderr, "progress 3/3") {
				t.Errorf("progress out of order:\n%s", r.stderr)
			}
		})
	}
}

// TestCallExitCodes checks the statuses of call, get and read: 0 for a
// result, 1 for a tool's isError or a JSON-RPC error, with the message
// on standard error.
func TestCallExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command against the example app")
	}
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range []struct {
				args       []string
				code       int
				out, inErr string
			}{
				{[]string{"call", "foo", "bar=baz"}, 0, `"foo":"Foo done with baz"`, ""},
				{[]string{"call", "foo", "--args", `{"bar":"qux"}`, "--json"}, 0, `"structuredContent"`, ""},
				{[]string{"call", "get_study", "id=999"}, 1, "", `no study has the id "999"`},
				{[]string{"call", "no_such_tool"}, 1, "", "no_such_tool"},
				{[]string{"call", "foo"}, 1, "", "bar"},
				{[]string{"get", "code_review", "content=x := 1"}, 0, "x := 1", ""},
				{[]string{"get", "code_review"}, 1, "", "content"},
				{[]string{"read", "my_app://studies/042"}, 0, `"id":"042"`, ""},
				{[]string{"read", "my_app://studies/999"}, 1, "", "999"},
			} {
				r := runSpecter(t, s.env, append(c.args, s.flags(t)...)...)
				if r.code != c.code || !strings.Contains(r.stdout, c.out) || !strings.Contains(r.stderr, c.inErr) {
					t.Errorf("specter %v exited %d (want %d); stdout %q (want %q), stderr %q (want %q)",
						c.args, r.code, c.code, r.stdout, c.out, lastLines(r.stderr), c.inErr)
				}
			}
		})
	}
}

// lastLines is the end of a long output.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], "\n")
}

// terminal is the command run on a pseudo-terminal, as a person runs it.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File

	mu   sync.Mutex
	seen bytes.Buffer
	more chan struct{} // signalled when output arrives
	read int           // how much of seen expect has consumed
}

func startTerminal(t *testing.T, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(specterBin, args...)
	cmd.Env = hermetic(t, env...)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, ptmx: ptmx, more: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.seen.Write(buf[:n])
			term.mu.Unlock()
			select {
			case term.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
		<-done
	})
	return term
}

// expect waits for want in the output after what was expected before.
func (term *terminal) expect(want string) {
	term.t.Helper()
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		term.mu.Lock()
		out := term.seen.String()
		term.mu.Unlock()
		if i := strings.Index(out[term.read:], want); i >= 0 {
			term.read += i + len(want)
			return
		}
		select {
		case <-term.more:
		case <-timeout.C:
			term.t.Fatalf("no %q on the terminal; it shows:\n%s", want, out)
		}
	}
}

func (term *terminal) send(line string) {
	if _, err := io.WriteString(term.ptmx, line+"\r"); err != nil {
		term.t.Fatal(err)
	}
}

// wait returns the command's exit status.
func (term *terminal) wait() int {
	err := term.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		term.t.Fatal(err)
	}
	return 0
}

// TestCallOnATerminal runs call on a pseudo-terminal against the example
// app over stdio and HTTP in both eras: whoami's elicitation is answered
// through the form (a required field left empty is asked again), and
// long_task's progress is drawn as a bar.
func TestCallOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command against the example app")
	}
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			flags := s.flags(t)
			term := startTerminal(t, s.env, append([]string{"call", "whoami"}, flags...)...)
			term.expect("The server asks: What is your name?")
			term.expect("Answer? [A]ccept, [d]ecline, [c]ancel: ")
			term.send("")
			term.expect("What should I call you?")
			term.expect("Name [string, required]: ")
			term.send("")
			term.expect("Name is required")
			term.expect("Name [string, required]: ")
			term.send("Ada")
			term.expect("Hello, Ada!")
			if code := term.wait(); code != 0 {
				t.Errorf("call whoami exited %d", code)
			}

			term = startTerminal(t, s.env, append([]string{"call", "whoami"}, flags...)...)
			term.expect("Answer? [A]ccept, [d]ecline, [c]ancel: ")
			term.send("d")
			term.expect("You prefer not to say your name.")
			term.wait()

			term = startTerminal(t, s.env, append([]string{"call", "long_task", "steps=2"}, flags...)...)
			term.expect("[███████████████░░░░░░░░░░░░░░░] 1/2 step 1 of 2")
			term.expect("INFO long_task finished step 1 of 2")
			term.expect("[██████████████████████████████] 2/2 step 2 of 2")
			term.expect(`"steps":2`)
			if code := term.wait(); code != 0 {
				t.Errorf("call long_task exited %d", code)
			}
		})
	}
}

// TestCallInterrupted sends SIGINT (Ctrl-C) to call while a tool runs:
// the server sees the call cancelled, over stdio and HTTP in both eras,
// and the command exits 130.
func TestCallInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cancelled := make(chan struct{}, 1)
	srv := httptest.NewServer(newWaitRouter(func() { cancelled <- struct{}{} }))
	defer srv.Close()
	for _, era := range []string{"stateless", "session"} {
		t.Run("http/"+era, func(t *testing.T) {
			code, _ := interrupt(t, nil, "call", "wait", "--era", era, "--url", srv.URL)
			timeout := time.NewTimer(time.Minute)
			defer timeout.Stop()
			select {
			case <-cancelled:
			case <-timeout.C:
				t.Fatal("the server never saw the call cancelled")
			}
			if code != 130 {
				t.Errorf("exit status %d, want 130", code)
			}
		})
		t.Run("stdio/"+era, func(t *testing.T) {
			code, stderr := interrupt(t, []string{testServerEnv + "=1"}, "call", "wait", "--era", era, "--", self)
			if !strings.Contains(stderr, cancelledLine) {
				t.Errorf("the server never saw the call cancelled; stderr:\n%s", stderr)
			}
			if code != 130 {
				t.Errorf("exit status %d, want 130", code)
			}
		})
	}
}

// interrupt runs the command, sends it SIGINT once the tool reports
// progress, and returns its status and standard error.
func interrupt(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, specterBin, args...)
	cmd.Env = hermetic(t, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "progress 0 waiting to be cancelled") {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), all.String()
}

// TestCallSampling answers a tool's sampling request on a terminal, in
// both eras: the request is shown, the person's answer goes back as the
// model's, and an empty answer declines.
func TestCallSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command")
	}
	srv := httptest.NewServer(newWaitRouter(func() {}))
	defer srv.Close()
	for _, era := range []string{"stateless", "session"} {
		t.Run(era, func(t *testing.T) {
			term := startTerminal(t, nil, "call", "haiku", "--era", era, "--url", srv.URL)
			term.expect("The server asks for a completion, at most 50 tokens:")
			term.expect("user: Write a haiku about Go")
			term.expect("Your answer as the model (empty to decline): ")
			term.send("gophers dig")
			term.expect("human wrote: gophers dig")
			if code := term.wait(); code != 0 {
				t.Errorf("call haiku exited %d", code)
			}

			term = startTerminal(t, nil, "call", "haiku", "--era", era, "--url", srv.URL)
			term.expect("Your answer as the model (empty to decline): ")
			term.send("")
			term.expect("specter call: ")
			if code := term.wait(); code != 1 {
				t.Errorf("call haiku, declined, exited %d; want 1", code)
			}
		})
	}
}

// TestCallElicitationForm answers a form with an enum, a bounded integer
// with a default and a boolean with a default on a terminal, in both
// eras: invalid answers are asked again, empty ones take the defaults.
func TestCallElicitationForm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command")
	}
	srv := httptest.NewServer(newWaitRouter(func() {}))
	defer srv.Close()
	for _, era := range []string{"stateless", "session"} {
		t.Run(era, func(t *testing.T) {
			term := startTerminal(t, nil, "call", "survey", "--era", era, "--url", srv.URL)
			term.expect("The server asks: A short survey")
			term.expect("[A]ccept, [d]ecline, [c]ancel: ")
			term.send("a")
			term.expect("Your favourite colour")
			term.expect("[one of red, green, blue, required]: ")
			term.send("purple")
			term.expect("try again")
			term.send("green")
			term.expect("How many [integer, default 3]: ")
			term.send("12")
			term.expect("try again")
			term.send("")
			term.expect("subscribe [boolean, default true]: ")
			term.send("")
			term.expect("accept: green 3 true")
			if code := term.wait(); code != 0 {
				t.Errorf("call survey exited %d", code)
			}
		})
	}
}
