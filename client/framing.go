package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/specter-mcp/specter/jsonrpc"
)

// Framing is how messages are delimited on a byte stream.
type Framing int

const (
	// Lines puts one JSON-RPC message on each line, as the MCP stdio
	// transport does. Lines ending in CRLF are read too.
	Lines Framing = iota
	// ContentLength puts a Content-Length header and a blank line before
	// each message, as the Language Server Protocol does
	// ("Content-Length: 42\r\n\r\n{…}"), for servers that speak it, such
	// as the Logtalk one. Other headers are ignored.
	ContentLength
)

// maxMessage bounds one message read from a stream or an HTTP response
// (a JSON answer, and by default an SSE event).
const maxMessage = 64 << 20

// StreamConn returns a Conn that exchanges messages over a byte stream
// (a socket, a pipe) in the given framing; Close closes rwc. What the
// other side writes that is not a message, such as a log line on a
// server's output, is skipped.
func StreamConn(rwc io.ReadWriteCloser, framing Framing) Conn {
	return newStreamConn(rwc, rwc, framing)
}

func newStreamConn(r io.Reader, w io.WriteCloser, framing Framing) *streamConn {
	return &streamConn{r: bufio.NewReaderSize(r, 64<<10), w: w, framing: framing, turn: make(chan struct{}, 1), closing: make(chan struct{})}
}

type streamConn struct {
	r       *bufio.Reader // read by one goroutine
	framing Framing

	// turn is held by the write in progress, one at a time so that frames
	// are never interleaved; a channel rather than a mutex, so that a
	// writer waiting behind a peer that stopped reading can give up when
	// its context ends.
	turn    chan struct{}
	closing chan struct{} // closed by Close: no more writes
	once    sync.Once
	w       io.WriteCloser
}

// errClosed is the error of a write after Close.
var errClosed = errors.New("the connection is closed")

// Read returns the next message. A blocked read ends when the stream is
// closed, not with ctx.
func (s *streamConn) Read(context.Context) (*jsonrpc.Message, error) {
	for {
		body, err := s.next()
		if err != nil {
			return nil, err
		}
		var m jsonrpc.Message
		if json.Unmarshal(body, &m) == nil && (m.Method != "" || !m.ID.IsZero()) {
			return &m, nil
		}
	}
}

// next returns the next framed body, skipping empty lines.
func (s *streamConn) next() ([]byte, error) {
	if s.framing == ContentLength {
		return s.frame()
	}
	for {
		line, err := s.line(maxMessage)
		if err != nil {
			return nil, err
		}
		if len(line) > 0 {
			return line, nil
		}
	}
}

// line reads a line of at most max bytes, without its end.
func (s *streamConn) line(max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+2 {
			return nil, fmt.Errorf("a line longer than %d bytes", max)
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (len(buf) == 0 || !errors.Is(err, io.EOF)):
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), nil
	}
}

// maxHeaderLine bounds a header line of a Content-Length frame.
const maxHeaderLine = 1 << 10

// frame reads a Content-Length frame and returns its body.
func (s *streamConn) frame() ([]byte, error) {
	n := -1
	for {
		line, err := s.line(maxHeaderLine)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if n < 0 {
				continue // blank lines between frames
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue
		}
		if n, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil || n < 0 || n > maxMessage {
			return nil, fmt.Errorf("a frame with Content-Length %q", bytes.TrimSpace(value))
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// Write sends a message in the stream's framing, or gives up when ctx
// ends: before its turn came, nothing of the message is written; after,
// the frame is completed (or cut short by Close) behind the caller's back,
// so that the next one still starts on a frame boundary.
func (s *streamConn) Write(ctx context.Context, m *jsonrpc.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if s.framing == ContentLength {
		b = append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(b)), b...)
	} else {
		b = append(b, '\n')
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("writing to the server: %w", ctx.Err())
	case <-s.closing:
		return errClosed
	}
	if ctx.Done() == nil {
		// A context that never ends: no need for a goroutine to wait on it.
		defer func() { <-s.turn }()
		return s.write(b)
	}
	written := make(chan error, 1)
	go func() {
		defer func() { <-s.turn }()
		written <- s.write(b)
	}()
	select {
	case err := <-written:
		return err
	case <-ctx.Done():
		return fmt.Errorf("writing to the server: %w", ctx.Err())
	}
}

// write writes b, holding the turn.
func (s *streamConn) write(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

// Close closes the stream at once: a message being written is cut short.
func (s *streamConn) Close() error { return s.closeWithin(nil) }

// closeWithin closes the stream once the message being written, if any,
// is through, or when over is closed, whichever comes first (at once for
// a nil over).
func (s *streamConn) closeWithin(over <-chan struct{}) error {
	s.once.Do(func() { close(s.closing) })
	if over != nil {
		select {
		case s.turn <- struct{}{}: // kept: no write starts after Close
		case <-over:
		}
	}
	return s.w.Close() // also ends a write the other side never took
}
