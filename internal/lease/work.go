package lease

import "strings"

// Work is one entry of a node's work, as a node that takes it over reads
// it.
type Work struct {
	Task string // a task whose work ran on the node; or
	// a request the node was answering: its session, the stream of its
	// answer and its JSON-RPC id (JSON).
	Session, Stream, ID string
}

const sep = "\x00"

// Request is the entry of a request of session answered on stream.
func Request(session, stream, id string) string {
	return "r" + sep + session + sep + stream + sep + id
}

// Task is the entry of a task whose work runs on this node.
func Task(id string) string { return "t" + sep + id }

// Parse reads an entry; ok is false for one it does not know (written by
// a later version).
func Parse(entry string) (w Work, ok bool) {
	kind, rest, _ := strings.Cut(entry, sep)
	switch kind {
	case "t":
		return Work{Task: rest}, rest != ""
	case "r":
		parts := strings.SplitN(rest, sep, 3)
		if len(parts) != 3 {
			return Work{}, false
		}
		return Work{Session: parts[0], Stream: parts[1], ID: parts[2]}, true
	}
	return Work{}, false
}
