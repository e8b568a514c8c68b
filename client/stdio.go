package client

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// CommandTransport is the stdio transport: it starts Cmd and exchanges
// JSON-RPC messages over its standard input and output, one per line, or
// in Content-Length frames (Framing). The command's standard error is
// left as set on Cmd. Close closes its input and waits for it to exit,
// killing it after WaitDelay. A write to a command that stopped reading
// gives up when its context ends.
type CommandTransport struct {
	Cmd *exec.Cmd
	// WaitDelay is how long Close waits for the command to exit once its
	// input is closed before killing it; default 5 seconds.
	WaitDelay time.Duration
	// Framing delimits the messages; default Lines, as MCP's stdio
	// transport has them.
	Framing Framing
}

// Command returns a stdio transport for the command name with args.
func Command(name string, args ...string) *CommandTransport {
	return &CommandTransport{Cmd: exec.Command(name, args...)}
}

// Connect starts the command and returns its connection.
func (t *CommandTransport) Connect(ctx context.Context) (Conn, error) {
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
	return &commandConn{streamConn: newStreamConn(stdout, stdin, t.Framing), cmd: t.Cmd, wait: wait}, nil
}

func (t *CommandTransport) open(ctx context.Context, in inbound) (conn, error) {
	c, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newMessageConn(c, in), nil
}

// commandConn is the stream of a running command.
type commandConn struct {
	*streamConn
	cmd  *exec.Cmd
	wait time.Duration
}

// Close closes the command's input, which tells it to exit, and waits
// for it, killing it after the wait delay. Its output then ends.
func (c *commandConn) Close() error { return c.closeContext(context.Background()) }

// closeContext closes the command's input and waits for the command to
// exit, for the wait delay or until ctx ends, whichever comes first; then
// it kills the command. A message being written when it begins is given
// the same time to go through: a command that stopped reading holds up
// nothing past it.
func (c *commandConn) closeContext(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	_ = c.streamConn.closeWithin(ctx.Done())
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case <-exited:
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
		<-exited
	}
	return nil
}
