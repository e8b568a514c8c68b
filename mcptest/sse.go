package mcptest

import (
	"io"

	"github.com/specter-mcp/specter/sse"
)

// Event is one server-sent event as a client sees it.
type Event = sse.ReadEvent

// EventReader reads server-sent events from a stream; see sse.Reader.
type EventReader = sse.Reader

// NewEventReader reads events from r.
func NewEventReader(r io.Reader) *EventReader { return sse.NewReader(r) }
