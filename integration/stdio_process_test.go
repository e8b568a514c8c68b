package integration

import (
	"bytes"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specter-mcp/specter/internal/msgtest"
)

const stdioMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func (p *stdioProc) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := p.stdin.Write([]byte(l + "\n")); err != nil {
			p.t.Fatalf("writing stdin: %v", err)
		}
	}
}

// next returns the next line of stdout as a message.
func (p *stdioProc) next() msgtest.Message {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout ended; stderr:\n%s", p.stderr)
		}
		m, err := msgtest.Decode(bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			p.t.Fatalf("stdout line %q: %v", l, err)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatalf("no message on stdout in 10s; stderr:\n%s", p.stderr)
		return msgtest.Message{}
	}
}

// until reads messages until the answer to id, and returns it.
func (p *stdioProc) until(id string) msgtest.Message {
	p.t.Helper()
	for {
		if m := p.next(); m.ID == id && m.Method == "" {
			return m
		}
	}
}

// Every byte the server writes to stdout belongs to a JSON-RPC message,
// one per line, while it logs on stderr, in both eras and for bad input.
func TestStdioStdoutOnlyProtocol(t *testing.T) {
	p := startStdioFixture(t)
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_logging"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_error_handling"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_reconnection"}}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{`+stdioMeta+`}}`,
	)
	// The answers come in any order; wait for them all, then close stdin.
	want := map[string]bool{"1": true, "2": true, "3": true, "4": true, "5": true, "6": true, "7": true, "8": true}
	notes := 0
	parseErrors := 0
	for len(want) > 0 {
		m := p.next()
		switch {
		case m.Method != "":
			notes++
		case m.ID == "" && m.Error != nil && m.Error.Code == -32700:
			parseErrors++
		default:
			delete(want, m.ID)
		}
	}
	_ = p.stdin.Close()
	var rest []byte
	for l := range p.lines { // every byte, up to EOF
		rest = append(rest, l...)
	}
	for _, l := range bytes.SplitAfter(rest, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if _, err := msgtest.Decode(bytes.TrimSuffix(l, []byte("\n"))); err != nil || l[len(l)-1] != '\n' {
			t.Errorf("stdout after the answers: %q (%v)", l, err)
		}
	}
	<-p.exited
	if notes < 6 || parseErrors != 1 {
		t.Errorf("%d notifications (want at least 3 log messages and 3 progress), %d parse errors (want 1)", notes, parseErrors)
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "serving on stdio") || !strings.Contains(stderr, "mcp session ended") || !exitedOnEOF(stderr) {
		t.Errorf("stderr lacks the server's log lines:\n%s", stderr)
	}
}

// Closing stdin while a tool runs ends the process within the drain
// bound (1 s by default, well inside the 2 s most clients wait before
// SIGTERM), and it exits on its own, with status 0.
func TestStdioEOFWhileRunning(t *testing.T) {
	p := startStdioFixture(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":60},` + stdioMeta + `}}`)
	// A second request answered proves the first one is running.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + stdioMeta + `}}`)
	if m := p.until("2"); m.Error != nil {
		t.Fatalf("tools/list: %s", m.Raw)
	}
	closed := time.Now()
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		t.Fatalf("still running 2s after stdin closed; stderr:\n%s", p.stderr)
	}
	t.Logf("exited %v after stdin closed", time.Since(closed).Round(time.Millisecond))
	if !p.cmd.ProcessState.Success() || !exitedOnEOF(p.stderr.String()) {
		t.Errorf("exit: %v; stderr:\n%s", p.cmd.ProcessState, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "cancelled") {
		t.Errorf("the cut request was not logged:\n%s", p.stderr)
	}
}

// An idle server exits at once when stdin closes; two run side by side
// (some clients start a throwaway one to probe server/discover).
func TestStdioSideBySide(t *testing.T) {
	a, b := startStdioFixture(t), startStdioFixture(t)
	for _, p := range []*stdioProc{a, b} {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + stdioMeta + `}}`)
	}
	for _, p := range []*stdioProc{a, b} {
		if m := p.until("1"); m.Result["resultType"] != "complete" {
			t.Fatalf("server/discover: %s", m.Raw)
		}
	}
	for _, p := range []*stdioProc{a, b} {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
			t.Fatalf("an idle server still running 2s after stdin closed")
		}
		if !p.cmd.ProcessState.Success() || !exitedOnEOF(p.stderr.String()) {
			t.Errorf("exit: %v; stderr:\n%s", p.cmd.ProcessState, p.stderr)
		}
	}
}

// With -content-length the fixture reads and writes LSP-style frames.
func TestStdioContentLengthProcess(t *testing.T) {
	p := startStdioFixture(t, "-content-length")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text",` + stdioMeta + `}}`
	if _, err := fmt.Fprintf(p.stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
	// A frame ends with no line end: read stdout to its end, which comes
	// once the server has answered and exited.
	_ = p.stdin.Close()
	var frame []byte
	for l := range p.lines {
		frame = append(frame, l...)
	}
	head, msg, ok := bytes.Cut(frame, []byte("\r\n\r\n"))
	if !ok || string(head) != fmt.Sprintf("Content-Length: %d", len(msg)) {
		t.Fatalf("frame %q", frame)
	}
	m, err := msgtest.Decode(msg)
	if err != nil || m.ID != "1" || m.Text() != "This is a simple text response for testing." {
		t.Fatalf("frame body %q: %v", msg, err)
	}
}

// SIGTERM while a tool runs ends the process as the end of stdin does:
// within the drain, with status 0.
func TestStdioSIGTERMWhileRunning(t *testing.T) {
	p := startStdioFixture(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":60},` + stdioMeta + `}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + stdioMeta + `}}`)
	p.until("2")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		t.Fatalf("still running 2s after SIGTERM; stderr:\n%s", p.stderr)
	}
	if !p.cmd.ProcessState.Success() || !strings.Contains(p.stderr.String(), "signal; exiting") {
		t.Errorf("exit: %v; stderr:\n%s", p.cmd.ProcessState, p.stderr)
	}
}
