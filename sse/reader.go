package sse

import (
	"bufio"
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
}

// NewReader reads events from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event. Comments are skipped. It returns io.EOF at
// the end of the stream.
func (er *Reader) Next() (ReadEvent, error) {
	var ev ReadEvent
	var data []string
	seen := false
	for {
		line, err := er.line()
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
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Name = value
		case "data":
			data = append(data, value)
			ev.HasData = true
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil {
				ev.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	ev.Data = strings.Join(data, "\n")
	return ev, nil
}

// line returns the next line without its line end. The stream is read up
// to a LF; a CR before it ends a line too. (A CR-only stream is therefore
// read when its next LF arrives: the servers under test end lines in LF.)
func (er *Reader) line() (string, error) {
	if len(er.lines) == 0 {
		chunk, err := er.r.ReadString('\n')
		if err != nil {
			return "", err
		}
		chunk = strings.TrimSuffix(strings.TrimSuffix(chunk, "\n"), "\r")
		if !strings.Contains(chunk, "\r") {
			return chunk, nil
		}
		er.lines = strings.Split(chunk, "\r")
	}
	l := er.lines[0]
	er.lines = er.lines[1:]
	return l, nil
}
