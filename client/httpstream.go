package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Connect opens the transport as a plain Conn, for code that speaks the
// protocol itself (a proxy, a recorder): each request written is POSTed
// and its response read back with the messages that came before it; in a
// session, the GET stream opens once notifications/initialized is
// written, and Close ends the session. The Conn tells the server the
// protocol version (from the initialize result, or a 2026-07-28 request's
// _meta) and the Mcp-Method and Mcp-Name of 2026-07-28 requests; the
// Mcp-Param-* headers of tools with x-mcp-header annotations come only
// with a Client, which reads the tools' schemas.
func (t *HTTPTransport) Connect(ctx context.Context) (Conn, error) {
	s := &httpStream{msgs: make(chan *jsonrpc.Message, 16)}
	s.ctx, s.stop = context.WithCancel(context.Background())
	c, err := t.open(ctx, s.deliver)
	if err != nil {
		s.stop()
		return nil, err
	}
	s.c = c.(*httpConn)
	return s, nil
}

// httpStream is Streamable HTTP as a Conn.
type httpStream struct {
	c    *httpConn
	msgs chan *jsonrpc.Message // what Read returns

	ctx  context.Context // ends at Close
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu        sync.Mutex
	version   string
	listening bool
	closed    bool
}

// deliver queues a message for Read, waiting while the reader is behind;
// a Conn has no calls to relate it to.
func (s *httpStream) deliver(_ context.Context, m *jsonrpc.Message) {
	select {
	case s.msgs <- m:
	case <-s.ctx.Done():
	}
}

func (s *httpStream) Read(ctx context.Context) (*jsonrpc.Message, error) {
	select {
	case m := <-s.msgs:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, io.EOF
	}
}

func (s *httpStream) Write(ctx context.Context, m *jsonrpc.Message) error {
	if !json.Valid(m.Params) && len(m.Params) > 0 {
		return errors.New("the message's params are not JSON")
	}
	var params map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &params)
	var meta struct {
		Version string `json:"io.modelcontextprotocol/protocolVersion"`
	}
	_ = json.Unmarshal(params["_meta"], &meta)
	s.mu.Lock()
	if meta.Version != "" {
		s.version = meta.Version
	}
	version, closed := s.version, s.closed
	if !closed && m.Method != "" && !m.ID.IsZero() {
		s.wg.Add(1)
	}
	s.mu.Unlock()
	if closed {
		return io.ErrClosedPipe
	}
	out := &outgoing{msg: m, header: messageHeader(version, m.Method, params)}
	if m.Method == "" || m.ID.IsZero() {
		if err := s.c.send(ctx, out); err != nil {
			return err
		}
		if m.Method == mcp.NotificationInitialized {
			s.listen()
		}
		return nil
	}
	go func() {
		defer s.wg.Done()
		resp, err := s.c.call(s.ctx, out)
		if err != nil {
			resp = &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: m.ID, Error: rpcError(err)}
		}
		if m.Method == mcp.MethodInitialize && resp.Result != nil {
			var r mcp.InitializeResult
			if json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
				s.mu.Lock()
				s.version = r.ProtocolVersion
				s.mu.Unlock()
			}
		}
		s.deliver(nil, resp)
	}()
	return nil
}

// listen opens the session's GET stream for the server's own messages.
func (s *httpStream) listen() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.listening {
		return
	}
	s.listening = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.c.listen(s.ctx, func() {})
	}()
}

// Close ends the session (DELETE) and the requests in flight.
func (s *httpStream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.c.close(context.Background())
	s.stop()
	s.wg.Wait()
	return err
}
