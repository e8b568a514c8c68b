package session

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// NewStream registers a new POST answer stream produced on this node,
// awaiting answers to the pending requests of msgs, a JSON-RPC batch or
// not.
func (s *Session) NewStream(msgs []*jsonrpc.Message, pending int, batch bool) *stream.Stream {
	o := s.t.cfg.Streams.New(stream.Options{Session: s.id, ID: s.t.uniqueID("p"),
		Priming: mcp.SupportsPriming(s.version), Pending: pending, Batch: batch, Orphaned: s.drop, Requests: msgs})
	s.mu.Lock()
	if !s.ended {
		if s.streams == nil {
			s.streams = map[string]*stream.Stream{}
		}
		s.streams[o.ID()] = o
	}
	s.mu.Unlock()
	return o
}

// DropStream forgets a stream: it was delivered, or nobody can ask for it.
func (s *Session) DropStream(o *stream.Stream) {
	s.mu.Lock()
	delete(s.streams, o.ID())
	s.mu.Unlock()
	o.Drop()
}

// Stream returns the stream id produced here, or nil.
func (s *Session) Stream(id string) *stream.Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.getStream != nil && s.getStream.ID() == id {
		return s.getStream
	}
	return s.streams[id]
}

// source is what this node knows of stream id, which another node
// produces: the id names its node (see Table.uniqueID) and its kind.
func (s *Session) source(id string) stream.Source {
	src := stream.Source{Session: s.id, ID: id}
	if dot := strings.LastIndexByte(id, '.'); dot > 1 {
		src.Node, src.Standalone = id[1:dot], id[0] == 'g'
	}
	return src
}

// GetStream returns this node's standalone GET stream, creating it on
// first use. Its id is unique across the deployment: another node's GET
// stream of the session numbers its events from 1 too, and sharing a
// buffer with it would replay events twice to a client that resumes.
func (s *Session) GetStream() *stream.Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.getStream == nil {
		s.getStream = s.t.cfg.Streams.New(stream.Options{Session: s.id, ID: s.t.uniqueID("g"),
			Priming: mcp.SupportsPriming(s.version), Standalone: true})
	}
	return s.getStream
}

// HasGetStream reports whether a client opened the GET stream here.
func (s *Session) HasGetStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getStream != nil
}

// GetStreamAttached reports whether a connection reads the GET stream here.
func (s *Session) GetStreamAttached() bool {
	s.mu.Lock()
	g := s.getStream
	s.mu.Unlock()
	return g != nil && g.Attached()
}

// NotifyJSON sends the notification method with params (anything that
// encodes to JSON) as Notify does.
func (s *Session) NotifyJSON(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("specter: encode %s: %w", method, err)
	}
	s.Notify(jsonrpc.AppendRequest(nil, nil, method, p))
	return nil
}

// Notify sends a message on the GET stream if the client opened one here;
// otherwise there is no channel for it on this node.
func (s *Session) Notify(data []byte) {
	s.mu.Lock()
	g := s.getStream
	s.mu.Unlock()
	if g != nil {
		g.Notice(data)
	}
}
