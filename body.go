package specter

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/specter-mcp/specter/internal/refusal"
)

// DefaultBodyReadTimeout is the default of BodyReadTimeout.
const DefaultBodyReadTimeout = 30 * time.Second

// BodyReadTimeout bounds how long a POST's body may take to arrive, from
// the moment the router starts reading it. A body that is not read in time
// gets 408 Request Timeout with a JSON-RPC error and the connection is
// closed, so a client that trickles its body cannot hold a connection and
// a goroutine for long. The bound covers the body only: the answer,
// however long it streams, is not cut. Default 30 seconds, enough for the
// largest body MaxBodyBytes allows on a slow link; 0 sets no bound of the
// router's own.
//
// It is a read deadline on the connection (http.ResponseController), which
// every net/http server supports; with a ResponseWriter that cannot set
// one, only the server's own timeouts apply. Set http.Server's
// ReadHeaderTimeout for the headers, and not its ReadTimeout or
// WriteTimeout, which would cut long-lived event streams.
func BodyReadTimeout(d time.Duration) RouterOption {
	return routerOption(func(r *Router) { r.cfg.bodyTimeout = d })
}

// readBody reads req's body into buf within MaxBodyBytes and
// BodyReadTimeout. When it cannot, it answers the request (413, 408 or
// 400), without waiting for the rest of the body, and returns false.
func (r *Router) readBody(w http.ResponseWriter, req *http.Request, buf *bytes.Buffer) bool {
	rc := http.NewResponseController(w)
	if r.cfg.bodyTimeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(r.cfg.bodyTimeout))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, r.cfg.maxBody))
	if err == nil {
		if r.cfg.bodyTimeout > 0 {
			// The answer may stream for hours on this connection.
			// (net/http's HTTP/1 server clears the deadline itself once
			// the body ends; other servers need not.)
			_ = rc.SetReadDeadline(time.Time{})
		}
		return true
	}
	refused := refusal.UnreadableBody
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		refused = refusal.BodyTooLarge(r.cfg.maxBody)
	case errors.Is(err, os.ErrDeadlineExceeded):
		refused = refusal.BodyTimeout(r.cfg.bodyTimeout)
	}
	refusal.AbandonBody(w, req)
	refusal.Write(w, nil, refused)
	return false
}
