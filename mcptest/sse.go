package mcptest

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"
)

// Event is one server-sent event as a client sees it.
type Event struct {
	ID    string
	Name  string
	Data  string
	Retry time.Duration
	// HasData is false for events with no data line at all (a bare retry).
	HasData bool
}

// EventReader reads server-sent events from a stream.
type EventReader struct {
	r *bufio.Reader
}

// NewEventReader reads events from r.
func NewEventReader(r io.Reader) *EventReader {
	return &EventReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event. Comments are skipped. It returns io.EOF at
// the end of the stream.
func (er *EventReader) Next() (Event, error) {
	var ev Event
	var data []string
	seen := false
	for {
		line, err := er.r.ReadString('\n')
		if err != nil {
			// An event the stream ended in the middle of is not
			// dispatched (WHATWG event-stream interpretation).
			return Event{}, err
		}
		line = strings.TrimRight(line, "\r\n")
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
