package stdio_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/internal/msgtest"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/stdio"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// pipes runs srv over in-memory pipes: the test writes the server's
// stdin and reads its stdout. The server's return is sent on done.
type pipes struct {
	t     *testing.T
	stdin *io.PipeWriter
	out   *bufio.Reader
	done  chan error
}

func serve(t *testing.T, srv *stdio.Server) *pipes {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipes{t: t, stdin: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		p.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let the server finish writing
		if err := <-p.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return p
}

func (p *pipes) write(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatal(err)
	}
}

// line reads one line of stdout and decodes it as one message.
func (p *pipes) line() msgtest.Message {
	p.t.Helper()
	l, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading stdout: %v (read %q)", err, l)
	}
	m, err := msgtest.Decode(l[:len(l)-1])
	if err != nil {
		p.t.Fatalf("stdout line %q: %v", l, err)
	}
	return m
}

// frame reads one Content-Length frame of stdout.
func (p *pipes) frame() msgtest.Message {
	p.t.Helper()
	h, err := textproto.NewReader(p.out).ReadMIMEHeader()
	if err != nil {
		p.t.Fatalf("reading a frame's header: %v", err)
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil || len(h) != 1 {
		p.t.Fatalf("frame header %v", h)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(p.out, body); err != nil {
		p.t.Fatal(err)
	}
	m, err := msgtest.Decode(body)
	if err != nil {
		p.t.Fatalf("frame %q: %v", body, err)
	}
	return m
}

func newFixture() *specter.Router { return fixture.New(specter.Logger(zerolog.Nop())) }

func TestLines(t *testing.T) {
	p := serve(t, &stdio.Server{Handler: newFixture(), MaxMessageBytes: 1 << 10})

	// Blank lines are skipped; CRLF line ends are read.
	p.write("\n  \r\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}` + "\r\n")
	if m := p.line(); m.ID != "1" || m.Result["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize answered %s", m.Raw)
	}
	p.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")

	// Sampling, over the pipe and back.
	p.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"Capital of France?"}}}` + "\n")
	ask := p.line()
	if ask.Method != "sampling/createMessage" {
		t.Fatalf("want a sampling request, got %s", ask.Raw)
	}
	p.write(`{"jsonrpc":"2.0","id":` + ask.ID + `,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"Paris"}}}` + "\n")
	if m := p.line(); m.ID != "2" || m.Text() != "LLM response: Paris" {
		t.Fatalf("test_sampling answered %s", m.Raw)
	}

	// Bad input is answered with a parse error, and the server goes on.
	p.write("this is not JSON\n")
	if m := p.line(); m.Error == nil || m.Error.Code != -32700 {
		t.Fatalf("a line of text answered %s", m.Raw)
	}
	p.write(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100<<10) + `"}}` + "\n")
	if m := p.line(); m.Error == nil || m.Error.Code != -32700 || !strings.Contains(m.Error.Message, "larger than 1024 bytes") {
		t.Fatalf("an oversized line answered %s", m.Raw)
	}
	p.write(`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n")
	if m := p.line(); m.ID != "4" || m.Error != nil {
		t.Fatalf("ping after bad input answered %s", m.Raw)
	}
}

func TestContentLength(t *testing.T) {
	p := serve(t, &stdio.Server{Handler: newFixture(), Framing: stdio.ContentLength, MaxMessageBytes: 1 << 10})
	frame := func(body string) string {
		return fmt.Sprintf("Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body)
	}
	p.write(frame(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta + `}}`))
	if m := p.frame(); m.ID != `"d"` || m.Result["resultType"] != "complete" {
		t.Fatalf("server/discover answered %s", m.Raw)
	}
	// A body with newlines in it: framing needs none.
	p.write(frame("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/call\",\n  \"params\": {\"name\": \"test_tool_with_progress\", \"_meta\": {\"progressToken\": 9, " +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}` + "\n}"))
	for range 3 {
		if m := p.frame(); m.Method != "notifications/progress" {
			t.Fatalf("want progress, got %s", m.Raw)
		}
	}
	if m := p.frame(); m.ID != "1" || m.Text() != "9" {
		t.Fatalf("tools/call answered %s", m.Raw)
	}
	// A frame without its length, and one too large, are skipped.
	p.write("Content-Type: application/json\r\n\r\n")
	if m := p.frame(); m.Error == nil || m.Error.Code != -32700 {
		t.Fatalf("a frame without Content-Length answered %s", m.Raw)
	}
	p.write(frame(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`))
	if m := p.frame(); m.Error == nil || !strings.Contains(m.Error.Message, "larger than") {
		t.Fatalf("an oversized frame answered %s", m.Raw)
	}
	// A header line that goes on and on is cut at its bound.
	p.write("X-Pad: " + strings.Repeat("x", 4<<10) + "\r\n\r\n")
	if m := p.frame(); m.Error == nil || m.Error.Code != -32700 || !strings.Contains(m.Error.Message, "header line longer than") {
		t.Fatalf("an endless header line answered %s", m.Raw)
	}
	p.write(frame(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`))
	if m := p.frame(); m.ID != "3" || m.Error != nil {
		t.Fatalf("tools/list answered %s", m.Raw)
	}
}

// When stdin closes while a tool runs, the server gives it the drain and
// then cancels it; nothing is left running (goleak checks the rest), in
// either era.
func TestEOFWhileRunning(t *testing.T) {
	for _, era := range []struct{ name, lines string }{
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_until_cancelled",` + meta + "}}\n"},
		{"session", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_until_cancelled"}}` + "\n"},
	} {
		t.Run(era.name, func(t *testing.T) {
			// The tool runs until it is cancelled: a Serve that never
			// cancels it runs until the test's deadline.
			r := newFixture()
			running := make(chan struct{}, 1)
			r.Tool("run_until_cancelled", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
				running <- struct{}{}
				<-c.Done()
				return specter.Error(c.Err())
			}, specter.Description("Runs until cancelled"))
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- (&stdio.Server{Handler: r, Drain: 10 * time.Millisecond}).Serve(context.Background(), inR, outW)
			}()
			go io.Copy(io.Discard, outR)
			_, _ = io.WriteString(inW, era.lines)
			<-running
			inW.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-mcptest.Context(t).Done():
				t.Fatal("Serve still running at the test's deadline after stdin closed, with a 10ms drain")
			}
			outW.Close()
			if r.Sessions() != 0 || r.Listeners() != 0 || r.StreamsAttached() != 0 {
				t.Errorf("after Serve: %d sessions, %d listeners, %d streams", r.Sessions(), r.Listeners(), r.StreamsAttached())
			}
		})
	}
}

// stalled is an output that nobody reads and nobody closed: a write
// blocks until release is closed.
type stalled struct {
	writing chan struct{} // a write started
	release chan struct{}
}

func (s *stalled) Write(b []byte) (int, error) {
	select {
	case s.writing <- struct{}{}:
	default:
	}
	<-s.release
	return len(b), nil
}

// A write to an output that nobody reads holds its request past the
// drain: Serve returns anyway soon after, and leaves it behind until the
// output moves again.
func TestStalledOutput(t *testing.T) {
	inR, inW := io.Pipe()
	out := &stalled{writing: make(chan struct{}, 1), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- (&stdio.Server{Handler: newFixture(), Drain: 100 * time.Millisecond}).Serve(context.Background(), inR, out)
	}()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+"}}\n")
	<-out.writing
	inW.Close()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "left behind") {
			t.Errorf("Serve = %v, want the stuck work left behind", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Serve still running 10s after stdin closed, with a 100ms drain")
	}
	close(out.release) // what was left behind ends (goleak checks it)
}

// An output nobody reads any more ends the serving with its error.
func TestBrokenOutput(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	outR.Close()
	done := make(chan error, 1)
	go func() { done <- (&stdio.Server{Handler: newFixture()}).Serve(context.Background(), inR, outW) }()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{`+meta+"}}\n")
	if err := <-done; !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Serve = %v, want the write error", err)
	}
}

// The end of ctx (a signal) ends the serving as the end of stdin does:
// an idle server returns at once.
func TestContextEnd(t *testing.T) {
	r := newFixture()
	inR, inW := io.Pipe()
	defer inW.Close() // ends the read Serve left behind
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	defer outW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&stdio.Server{Handler: r}).Serve(ctx, inR, outW) }()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+"}}\n")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still running 10s after its context ended")
	}
	if err := (&stdio.Server{Handler: newFixture()}).Serve(ctx, strings.NewReader(""), io.Discard); err != nil {
		t.Errorf("Serve with a context already done: %v", err)
	}
}
