package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzRead feeds arbitrary input to both framings: reading never panics,
// never returns a message over the limit or a line with a line end in it,
// and always ends.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n  \r\nnot json\n"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}Content-Length: 99999\r\n\r\nxx"))
	f.Add([]byte("Content-Length: -1\r\n\r\ncontent-length:3\nX: y\n\nabc"))
	f.Add([]byte("Content-Type: a\r\n\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 64
		for framing, next := range []func(*bufio.Reader, int) ([]byte, error){readLine, readFrame} {
			r := bufio.NewReaderSize(bytes.NewReader(in), 16)
			for i := 0; ; i++ {
				if i > len(in)+1 {
					t.Fatalf("no end after %d reads of %d bytes", i, len(in))
				}
				msg, err := next(r, max)
				var bad *badInput
				if errors.As(err, &bad) {
					continue
				}
				if err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Fatalf("read error %v", err)
					}
					break
				}
				if len(msg) > max+2 {
					t.Fatalf("a %d-byte message over the %d limit", len(msg), max)
				}
				if Framing(framing) == Lines && bytes.IndexByte(msg, '\n') >= 0 {
					t.Fatalf("a line with a line end in it: %q", msg)
				}
			}
		}
	})
}
