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
// input and waits for it to exit, killing it after WaitDelay.
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
		return nil, errors.New("CommandTransport needs a Cmd")
	}
	stdin, err := t.Cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := t.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", t.Cmd.Path, err)
	}
	wait := t.WaitDelay
	if wait <= 0 {
		wait = 5 * time.Second
	}
	c := &stdioConn{cmd: t.Cmd, stdin: stdin, in: in, wait: wait, pending: map[string]chan *jsonrpc.Message{}, done: make(chan struct{})}
	go c.read(stdout)
	return c, nil
}

type stdioConn struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	in    inbound
	wait  time.Duration

	wmu sync.Mutex // serializes writes

	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message
	err     error // why reading stopped
	done    chan struct{}
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
	c.err = fmt.Errorf("the server's output ended: %w", err)
	c.mu.Unlock()
	close(c.done)
}

func (c *stdioConn) write(m *jsonrpc.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.stdin.Write(b); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
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
	if err := c.write(out.msg); err != nil {
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

func (c *stdioConn) send(_ context.Context, out *outgoing) error { return c.write(out.msg) }

func (c *stdioConn) listen(_ context.Context, open func()) error {
	open()
	return nil
}

func (c *stdioConn) close(context.Context) error {
	c.wmu.Lock()
	_ = c.stdin.Close()
	c.wmu.Unlock()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(c.wait):
		_ = c.cmd.Process.Kill()
		<-exited
	}
	<-c.done
	return nil
}
