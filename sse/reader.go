package sse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ReadEvent is one server-sent event as a client reads it.
type ReadEvent struct {
	ID    string
	Name  string
	Data  string
	Retry time.Duration
	// HasData is false for events with no data line at all (a bare retry).
	HasData bool
}

// Reader reads server-sent events from a stream. Lines end in LF,
// CRLF or CR, as in the event-stream format.
type Reader struct {
	r     *bufio.Reader
	lines []string // lines split off the last read at CRs, not yet used
	max   int      // bound on the field lines of one event
}

// DefaultMaxEvent bounds one event of a NewReader: the bytes of its field
// lines (data, id, event, retry), line ends included.
const DefaultMaxEvent = 64 << 20

// ErrEventTooLarge is Next's error for an event, or a single line, over
// the reader's bound. The stream cannot be read further.
var ErrEventTooLarge = errors.New("sse: event too large")

// NewReader reads events from r, each at most DefaultMaxEvent bytes.
func NewReader(r io.Reader) *Reader { return NewLimitedReader(r, DefaultMaxEvent) }

// NewLimitedReader reads events from r, each at most max bytes.
func NewLimitedReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next event. Comments are skipped. It returns io.EOF at
// the end of the stream, and ErrEventTooLarge (wrapped) for an event over
// the bound, having read no more of it than the bound.
func (er *Reader) Next() (ReadEvent, error) {
	var ev ReadEvent
	var data strings.Builder
	used := 0
	seen := false
	for {
		line, err := er.line(er.max - used)
		if err != nil {
			// An event the stream ended in the middle of is not
			// dispatched (WHATWG event-stream interpretation).
			return ReadEvent{}, err
		}
		if line == "" {
			if seen {
				break
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		seen = true
		used += len(line) + 1
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Name = value
		case "data":
			if ev.HasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			ev.HasData = true
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil {
				ev.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	ev.Data = data.String()
	return ev, nil
}

// line returns the next line without its line end, refusing one longer
// than room. The stream is read up to a LF; a CR before it ends a line
// too. (A CR-only stream is therefore read when its next LF arrives: the
// servers under test end lines in LF.)
func (er *Reader) line(room int) (string, error) {
	if len(er.lines) == 0 {
		var chunk []byte
		for {
			frag, err := er.r.ReadSlice('\n')
			if len(chunk)+len(frag) > room+2 { // the line end is free
				return "", fmt.Errorf("%w: over %d bytes", ErrEventTooLarge, er.max)
			}
			chunk = append(chunk, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return "", err
			}
			break
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(chunk), "\n"), "\r")
		if !strings.Contains(line, "\r") {
			return line, nil
		}
		er.lines = strings.Split(line, "\r")
	}
	l := er.lines[0]
	er.lines = er.lines[1:]
	return l, nil
}
