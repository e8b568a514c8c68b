// Package stdio serves an MCP server over standard input and output, the
// transport desktop and IDE clients use for the servers they start as
// subprocesses: one JSON-RPC message per line on stdin, the server's
// messages one per line on stdout, logs on stderr. Content-Length framing
// (LSP style) is an option, for clients that frame messages that way.
//
//	r := specter.NewRouter("notes", "1.0")
//	// … declarations and connect, as for HTTP …
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	if err := (&stdio.Server{Handler: r}).Run(ctx); err != nil {
//		log.Fatal(err)
//	}
//
// The same router serves both eras over the pipe, with every semantic it
// has over HTTP (package direct carries each message to it): a
// session-era client initializes, and the server's requests (elicitation,
// sampling, roots) travel over the pipe; a 2026-07-28 client sends its
// _meta on every request, probes with server/discover, and answers
// input_required with a retry. Progress, logging, cancellation and
// list-changed notifications all arrive on stdout, each before the answer
// it preceded; on Linux, where the output is a pipe or a Unix socket, an
// answer that follows a notification waits (up to 50 ms) until the client
// has read the notification, so that a client that acts on an answer
// before on a notification it read with it (the TypeScript SDK) still
// sees the notification first.
//
// Connect runs for every message. The caller is whoever started the
// process: hand connect what it needs through Conn (a header such as
// Authorization with a token from the environment, or a principal in the
// context), and serve a whole Echo app to keep its authentication
// middleware; see package direct.
//
// When stdin ends, or ctx ends (a signal), the server stops reading,
// gives running requests Drain to finish, cancels the rest and ends the
// session; an idle server returns at once. Many clients send SIGTERM two
// seconds after closing stdin, so the default drain is one second. Work
// that ignores its cancellation, or a write to an output that nobody
// reads any more, is left behind 250 ms after the drain, so that the
// process still exits in time. No port or file is taken: any number of
// processes may run side by side.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/jsonrpc"
)

// Framing is how messages are delimited on the streams.
type Framing int

const (
	// Lines delimits messages with newlines, as the MCP stdio transport
	// does. Lines ending in CRLF are read too.
	Lines Framing = iota
	// ContentLength frames each message with a Content-Length header and
	// a blank line, as the Language Server Protocol does:
	// "Content-Length: 42\r\n\r\n{…}". Other headers are ignored; a
	// header line longer than 1 KiB is answered with a parse error.
	ContentLength
)

// DefaultSettle is the default of Server.Settle: a client that reads at
// once costs microseconds, one that does not costs this once per answer.
const DefaultSettle = 50 * time.Millisecond

// readReturns is how long an answer waits, once the client's read took
// the notifications before it, for that read to return.
const readReturns = 100 * time.Microsecond

// DefaultDrain is the default of Server.Drain.
const DefaultDrain = time.Second

// leaveBehind is how long after the drain Serve waits for the cancelled
// work to return before it returns without it: with the default drain,
// the serving still ends inside the two seconds clients give before
// SIGTERM.
const leaveBehind = 250 * time.Millisecond

// DefaultMaxMessageBytes is the default of Server.MaxMessageBytes, the
// router's default largest body.
const DefaultMaxMessageBytes = 4 << 20

// Server serves one MCP client over a pair of streams.
type Server struct {
	// Handler is the MCP server: a *specter.Router, or an app with one
	// mounted at Conn.Path. A handler with a Shutdown(context.Context)
	// error method, such as a *specter.Router, is shut down when the
	// serving ends, within the drain.
	Handler http.Handler
	// Conn configures the connection to Handler: the path, the header
	// and the context every message is served with. Default: the zero
	// direct.Config.
	Conn direct.Config
	// Framing delimits messages. Default Lines.
	Framing Framing
	// MaxMessageBytes bounds a message read from the input; a longer one
	// is skipped and answered with a JSON-RPC parse error. Default
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Drain is how long running requests may take to finish once the
	// input ends or the context is done. Default DefaultDrain.
	Drain time.Duration
	// Settle bounds how long an answer written right after a
	// notification waits until the client has read that notification,
	// so that the answer arrives in a read of its own (some clients act
	// on an answer before on a notification of the same read). Default
	// DefaultSettle; negative: answers do not wait.
	Settle time.Duration
	// Log receives what only the operator should see (a broken output,
	// requests cut at the end of the drain). Default: nothing is logged.
	Log zerolog.Logger
}

// Run serves the process's stdin and stdout until stdin ends or ctx is
// done. While it runs, os.Stdout points at stderr, so that a stray print
// of the app cannot corrupt the protocol stream.
func (s *Server) Run(ctx context.Context) error {
	out := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = out }()
	return s.Serve(ctx, os.Stdin, out)
}

// Serve reads messages from in and writes the server's to out until in
// ends (io.EOF) or ctx is done, then drains, closes the connection and
// shuts the handler down. It returns nil after the end of in or of ctx,
// and otherwise the error that stopped it (reading in, writing out, or
// work still running 250 ms after the drain, which it leaves behind).
// When ctx ends, a read of in in progress is left behind: close in to
// end it.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	max := s.MaxMessageBytes
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	drain := s.Drain
	if drain <= 0 {
		drain = DefaultDrain
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &writer{out: out, framing: s.Framing, broken: cancel, unread: unreadOf(out), settleFor: s.Settle}
	if w.settleFor == 0 {
		w.settleFor = DefaultSettle
	}
	conn := direct.Open(s.Handler, w.write, s.Conn)

	read := make(chan error, 1)
	go func() {
		read <- s.read(bufio.NewReaderSize(in, 64<<10), max, conn, w)
	}()
	var err error
	select {
	case err = <-read:
		if errors.Is(err, io.EOF) || errors.Is(err, direct.ErrClosed) {
			err = nil
		}
	case <-ctx.Done():
	}
	stop, done := context.WithTimeout(context.Background(), drain)
	defer done()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		if cerr := conn.Close(stop); cerr != nil {
			s.Log.Warn().Err(cerr).Dur("drain", drain).Msg("stdio: requests still running at the end of the drain were cancelled")
		}
		if sd, ok := s.Handler.(interface{ Shutdown(context.Context) error }); ok {
			_ = sd.Shutdown(stop)
		}
	}()
	// Work that ignores its cancellation, or a write to an output that
	// nobody reads and nobody closed, would hold the exit past the drain:
	// it is left behind, so that the process still ends in time.
	left := time.NewTimer(drain + leaveBehind)
	defer left.Stop()
	select {
	case <-closed:
	case <-left.C:
		s.Log.Error().Dur("drain", drain).Msg("stdio: work still running after the drain was left behind")
		return fmt.Errorf("stdio: work still running %v after the drain was left behind", leaveBehind)
	}
	if werr := w.err(); werr != nil && err == nil {
		err = werr
	}
	return err
}

// read hands each message of r to conn until r ends or conn is closed.
func (s *Server) read(r *bufio.Reader, max int, conn *direct.Conn, w *writer) error {
	next := readLine
	if s.Framing == ContentLength {
		next = readFrame
	}
	for {
		msg, err := next(r, max)
		var bad *badInput
		switch {
		case errors.As(err, &bad):
			w.write(jsonrpc.AppendError(nil, nil, jsonrpc.Errorf(jsonrpc.CodeParseError, "Parse error: %s", bad.reason)))
			continue
		case err != nil:
			return err
		case len(msg) == 0:
			continue
		}
		if err := conn.Send(msg); err != nil {
			return err
		}
	}
}

// badInput is input that is skipped, and answered with a parse error.
type badInput struct{ reason string }

func (e *badInput) Error() string { return e.reason }

func tooLarge(max int) error {
	return &badInput{reason: "message larger than " + strconv.Itoa(max) + " bytes"}
}

// readLine returns the next line without its line end, blank for a blank
// line. A line longer than max is skipped up to its end.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 { // +2: the line end
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n') // skipped without keeping it
			}
			return nil, tooLarge(max)
		}
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			// A last message without its newline is still a message.
		case err != nil:
			return nil, err
		}
		return bytes.TrimSpace(line), nil
	}
}

// maxHeaderLine bounds a header line of a Content-Length frame, so that
// a header that never ends cannot take the memory a body would.
const maxHeaderLine = 1 << 10

// readFrame returns the body of the next Content-Length frame.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, seen := -1, false
	for {
		b, err := readLine(r, maxHeaderLine)
		var bad *badInput
		switch {
		case errors.As(err, &bad):
			return nil, &badInput{reason: "a frame header line longer than " + strconv.Itoa(maxHeaderLine) + " bytes"}
		case errors.Is(err, io.EOF) && seen:
			return nil, io.ErrUnexpectedEOF
		case err != nil:
			return nil, err
		}
		line := string(b)
		if line == "" {
			if !seen {
				continue // blank lines between frames
			}
			break
		}
		seen = true
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 {
				return nil, &badInput{reason: "bad Content-Length " + strconv.Quote(strings.TrimSpace(value))}
			}
			n = v
		}
	}
	if n < 0 {
		return nil, &badInput{reason: "a frame without a Content-Length header"}
	}
	if n > max {
		if _, err := r.Discard(n); err != nil {
			return nil, err
		}
		return nil, tooLarge(max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// writer writes the server's messages to the output, one at a time.
type writer struct {
	out     io.Writer
	framing Framing
	broken  func() // called once the output fails: nobody reads the answers
	// unread tells how many written bytes the client has not read yet;
	// nil where the output cannot say (see unreadOf).
	unread    func() (int, bool)
	settleFor time.Duration // Server.Settle

	mu     sync.Mutex // held through a write
	buf    []byte
	notice bool                  // the last message written was a notification or request
	failed atomic.Pointer[error] // read without mu, which a stuck write holds
}

func (w *writer) write(msg []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed.Load() != nil {
		return
	}
	// A notification written before an answer reaches the client first,
	// on the wire. But a client may read both in one chunk, and some act
	// on an answer before on a notification of the same chunk: the
	// TypeScript SDK hands notifications to their handlers one microtask
	// later, by when the answer has retired the request's progress
	// handler, and the last progress is lost. So an answer written right
	// after a notification waits, up to Server.Settle, until the client has
	// read what came before: then it arrives in a read of its own.
	isNotice := hasMethod(msg)
	if w.notice && !isNotice {
		w.settle()
	}
	w.notice = isNotice
	b := w.buf[:0]
	if w.framing == ContentLength {
		b = fmt.Appendf(b, "Content-Length: %d\r\n\r\n", len(msg))
		b = append(b, msg...)
	} else {
		// A message is one line: JSON the handler passed through raw
		// may be indented.
		if bytes.ContainsAny(msg, "\r\n") {
			var c bytes.Buffer
			if json.Compact(&c, msg) == nil {
				msg = c.Bytes()
			}
		}
		b = append(append(b, msg...), '\n')
	}
	if _, err := w.out.Write(b); err != nil {
		failed := err // a copy, so that err does not escape on every write
		w.failed.Store(&failed)
		w.broken()
	}
	if cap(b) <= 64<<10 {
		w.buf = b
	}
}

// settle waits until the client has read everything written, or
// settleFor passed, or the output cannot tell. Nothing signals a read, so
// it polls, from 20 µs apart up to 1 ms apart: a client that reads at
// once costs microseconds, and one that does not costs settleFor.
func (w *writer) settle() {
	if w.unread == nil || w.settleFor < 0 {
		return
	}
	deadline := time.Now().Add(w.settleFor)
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		n, ok := w.unread()
		if !ok || time.Now().After(deadline) {
			return
		}
		if n == 0 {
			// The client's read took the bytes, but it may still be in
			// that read, which would take what comes next too: let it
			// return first.
			time.Sleep(readReturns)
			return
		}
		time.Sleep(pause)
	}
}

// hasMethod reports whether msg is a request or a notification rather
// than an answer, from the members the router writes first: "jsonrpc",
// the id of a request, then "method" (an answer has "result" or "error"
// there). A batch's answers are answers.
func hasMethod(msg []byte) bool {
	rest, ok := bytes.CutPrefix(msg, []byte(`{"jsonrpc":"2.0",`))
	if !ok {
		return false
	}
	if id, ok := bytes.CutPrefix(rest, []byte(`"id":`)); ok {
		i := bytes.IndexByte(id, ',') // the server's own request ids hold no comma
		if i < 0 {
			return false
		}
		rest = id[i+1:]
	}
	return bytes.HasPrefix(rest, []byte(`"method":`))
}

func (w *writer) err() error {
	if err := w.failed.Load(); err != nil {
		return fmt.Errorf("stdio: writing a message: %w", *err)
	}
	return nil
}
