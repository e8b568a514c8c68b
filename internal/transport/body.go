package transport

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/specter-mcp/specter/internal/refusal"
)

// readBody reads req's body into buf within MaxBody and BodyTimeout.
// When it cannot, it answers the request (413, 408 or 400), without
// waiting for the rest of the body, and returns false.
func (t *Transport[C]) readBody(w http.ResponseWriter, req *http.Request, buf *bytes.Buffer) bool {
	// A writer without read deadlines is found by asking it, as
	// http.ResponseController does, but without the error that answers
	// each try there.
	dl := readDeadliner(w)
	armed := t.cfg.BodyTimeout > 0 && dl != nil && dl.SetReadDeadline(time.Now().Add(t.cfg.BodyTimeout)) == nil
	_, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, t.cfg.MaxBody))
	if err == nil {
		if armed {
			// The answer may stream for hours on this connection.
			// (net/http's HTTP/1 server clears the deadline itself once
			// the body ends; other servers need not.)
			_ = dl.SetReadDeadline(time.Time{})
		}
		return true
	}
	refused := refusal.UnreadableBody
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		refused = refusal.BodyTooLarge(t.cfg.MaxBody)
	case errors.Is(err, os.ErrDeadlineExceeded):
		refused = refusal.BodyTimeout(t.cfg.BodyTimeout)
	}
	refusal.AbandonBody(w, req)
	refusal.Write(w, nil, refused)
	return false
}

type deadliner interface{ SetReadDeadline(time.Time) error }

// readDeadliner finds what sets w's read deadline, through the writers
// that wrap it (Unwrap, as http.ResponseController follows them), or nil.
func readDeadliner(w http.ResponseWriter) deadliner {
	for {
		switch t := w.(type) {
		case deadliner:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}
