package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
)

// CommandTransport is the stdio transport: it starts Cmd and exchanges
// newline-delimited JSON-RPC messages over its standard input and output.
// The command's standard error is left as set on Cmd. Close closes its
// input and waits for it to exit, killing it after WaitDelay. A write to
// a command that stopped reading gives up when its context ends.
type CommandTransport struct {
	Cmd *exec.Cmd
	// WaitDelay is how long Close waits for the command to exit once its
	// input is closed before killing it; default 5 seconds.
	WaitDelay time.Duration
}

// Command returns a stdio transport for the command name with args.
func Command(name string, args ...string) *CommandTransport {
	return &CommandTransport{Cmd: exec.Command(name, args...)}
}

// maxLine bounds one message read from a command.
const maxLine = 64 << 20

func (t *CommandTransport) open(ctx context.Context, in inbound) (conn, error) {
	if t.Cmd == nil {
		return nil, errors.New("mcp client: CommandTransport needs a Cmd")
	}
	stdin, err := t.Cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	stdout, err := t.Cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp client: %w", err)
	}
	if err := t.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcp client: starting %s: %w", t.Cmd.Path, err)
	}
	wait := t.WaitDelay
	if wait <= 0 {
		wait = 5 * time.Second
	}
	c := &stdioConn{
		cmd: t.Cmd, stdin: stdin, in: in, wait: wait,
		writes: make(chan line), stop: make(chan struct{}), written: make(chan struct{}),
		pending: map[string]chan *jsonrpc.Message{}, done: make(chan struct{}),
	}
	go c.read(stdout)
	go c.writer()
	return c, nil
}

type stdioConn struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	in    inbound
	wait  time.Duration

	// One goroutine writes the lines, so that a caller waiting on a
	// server that stopped reading can give up when its context ends
	// without cutting a line in two.
	writes  chan line
	stop    chan struct{} // closed by close: no more writes
	written chan struct{} // closed when the writer has returned
	once    sync.Once

	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message
	err     error // why reading stopped
	done    chan struct{}
}

// line is one message for the writer, and where its outcome goes.
type line struct {
	b    []byte
	sent chan error
}

// read routes each line the command writes: responses to their callers,
// everything else to the client.
func (c *stdioConn) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var m jsonrpc.Message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue // not a message: a server that logs to stdout
		}
		if m.Method != "" {
			c.in(&m)
			continue
		}
		c.mu.Lock()
		ch := c.pending[m.ID.Key()]
		delete(c.pending, m.ID.Key())
		c.mu.Unlock()
		if ch != nil {
			ch <- &m
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.err = fmt.Errorf("mcp client: the server's output ended: %w", err)
	c.mu.Unlock()
	close(c.done)
}

// writer writes the lines handed to it until close.
func (c *stdioConn) writer() {
	defer close(c.written)
	for {
		select {
		case l := <-c.writes:
			_, err := c.stdin.Write(l.b)
			l.sent <- err
		case <-c.stop:
			return
		}
	}
}

// errClosed is the error of a write after close.
var errClosed = errors.New("mcp client: the connection is closed")

// write sends m as one line, or gives up when ctx ends: before the writer
// took the line, nothing of it is written; after, the line is completed
// (or abandoned at close) behind the caller's back.
func (c *stdioConn) write(ctx context.Context, m *jsonrpc.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("mcp client: %w", err)
	}
	l := line{b: append(b, '\n'), sent: make(chan error, 1)}
	select {
	case c.writes <- l:
	case <-ctx.Done():
		return fmt.Errorf("mcp client: writing to the server: %w", ctx.Err())
	case <-c.stop:
		return errClosed
	}
	select {
	case err := <-l.sent:
		if err != nil {
			return fmt.Errorf("mcp client: writing to the server: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp client: writing to the server: %w", ctx.Err())
	}
}

func (c *stdioConn) call(ctx context.Context, out *outgoing) (*jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	key := out.msg.ID.Key()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.pending[key] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}
	if err := c.write(ctx, out.msg); err != nil {
		forget()
		return nil, err
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-c.done:
		forget()
		c.mu.Lock()
		defer c.mu.Unlock()
		return nil, c.err
	}
}

func (c *stdioConn) send(ctx context.Context, out *outgoing) error { return c.write(ctx, out.msg) }

func (c *stdioConn) listen(_ context.Context, open func()) error {
	open()
	return nil
}

// close ends the input, so that the command can exit, and waits for it
// to, for the grace period or until ctx ends, whichever comes first; then
// it kills the command. A line being written when close begins is given
// the same grace to finish.
func (c *stdioConn) close(ctx context.Context) error {
	over := make(chan struct{}) // stays closed once the grace period is over
	grace := time.AfterFunc(c.wait, func() { close(over) })
	defer grace.Stop()
	c.once.Do(func() { close(c.stop) })
	select {
	case <-c.written:
	case <-over:
	case <-ctx.Done():
	}
	_ = c.stdin.Close() // also ends a write the server never took
	<-c.written
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case <-exited:
	case <-over:
		_ = c.cmd.Process.Kill()
		<-exited
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
		<-exited
	}
	<-c.done
	return nil
}
