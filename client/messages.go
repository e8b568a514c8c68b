package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/specter-mcp/specter/jsonrpc"
)

// messageConn drives a Conn for the client: one goroutine reads it,
// passing responses to the requests waiting for them and everything else
// to the client.
type messageConn struct {
	c  Conn
	in inbound

	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message
	err     error // why reading stopped
	done    chan struct{}
	stop    context.CancelFunc
}

func newMessageConn(c Conn, in inbound) *messageConn {
	ctx, stop := context.WithCancel(context.Background())
	m := &messageConn{c: c, in: in, pending: map[string]chan *jsonrpc.Message{}, done: make(chan struct{}), stop: stop}
	go m.read(ctx)
	return m
}

func (m *messageConn) read(ctx context.Context) {
	defer close(m.done)
	for {
		msg, err := m.c.Read(ctx)
		if err != nil {
			m.mu.Lock()
			m.err = fmt.Errorf("the server's output ended: %w", err)
			m.mu.Unlock()
			return
		}
		if msg.Method != "" {
			m.in(nil, msg)
			continue
		}
		m.mu.Lock()
		ch := m.pending[msg.ID.Key()]
		delete(m.pending, msg.ID.Key())
		m.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	}
}

func (m *messageConn) call(ctx context.Context, out *outgoing) (*jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	key := out.msg.ID.Key()
	m.mu.Lock()
	if m.err != nil {
		err := m.err
		m.mu.Unlock()
		return nil, err
	}
	m.pending[key] = ch
	m.mu.Unlock()
	forget := func() {
		m.mu.Lock()
		delete(m.pending, key)
		m.mu.Unlock()
	}
	if err := m.c.Write(ctx, out.msg); err != nil {
		forget()
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-m.done:
		forget()
		m.mu.Lock()
		defer m.mu.Unlock()
		return nil, m.err
	}
}

func (m *messageConn) send(ctx context.Context, out *outgoing) error { return m.c.Write(ctx, out.msg) }

func (m *messageConn) listen(_ context.Context, open func()) error {
	open()
	return nil
}

// close closes the Conn and waits for its reading to end.
func (m *messageConn) close(context.Context) error {
	err := m.c.Close()
	m.stop()
	<-m.done
	return err
}
