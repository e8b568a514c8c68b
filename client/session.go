package client

import (
	"context"
	"errors"
	"net/http"
)

// sessionEnded reports whether err is the server's 404 to a request in a
// session (one that carried Mcp-Session-Id): the server ended or forgot
// the session, and the specification says the client MUST start a new
// one.
func sessionEnded(err error) bool {
	var se *sessionError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

// renew starts a new session in place of the one the server ended (its
// number was ended), unless another request did so already: initialize,
// then the log level. The session's GET stream, if the client listens,
// follows by itself.
func (c *Client) renew(ctx context.Context, ended uint64) error {
	c.renewMu.Lock()
	defer c.renewMu.Unlock()
	if c.session.Load() != ended {
		return nil
	}
	if err := c.initialize(ctx, c.Version()); err != nil {
		return err
	}
	c.session.Add(1)
	if level := c.opts.LogLevel; level != "" {
		if err := c.SetLogLevel(ctx, level); err != nil {
			c.warn(err, "logging/setLevel failed in the new session")
		}
	}
	return nil
}

// closesToCancel reports whether a transport cancels a 2026-07-28
// request by closing its stream (Streamable HTTP), where stdio and other
// transports send notifications/cancelled.
func closesToCancel(cn conn) bool {
	_, ok := cn.(*httpConn)
	return ok
}
