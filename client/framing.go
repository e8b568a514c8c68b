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

// maxMessage bounds one message read from a stream or an HTTP response.
const maxMessage = 64 << 20

// StreamConn returns a Conn that exchanges messages over a byte stream
// (a socket, a pipe) in the given framing; Close closes rwc. What the
// other side writes that is not a message, such as a log line on a
// server's output, is skipped.
func StreamConn(rwc io.ReadWriteCloser, framing Framing) Conn {
	return newStreamConn(rwc, rwc, framing)
}

func newStreamConn(r io.Reader, w io.WriteCloser, framing Framing) *streamConn {
	return &streamConn{r: bufio.NewReaderSize(r, 64<<10), w: w, framing: framing}
}

type streamConn struct {
	r       *bufio.Reader // read by one goroutine
	framing Framing

	wmu sync.Mutex // serializes writes
	w   io.WriteCloser
}

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

// Write sends a message in the stream's framing.
func (s *streamConn) Write(_ context.Context, m *jsonrpc.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if s.framing == ContentLength {
		b = append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(b)), b...)
	} else {
		b = append(b, '\n')
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

// Close closes the stream.
func (s *streamConn) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.w.Close()
}
