package client

import (
	"context"
	"time"
)

// EventLimit is the bound on one event of t's response streams.
func EventLimit(t *HTTPTransport) int { return t.eventLimit() }

// LimitEvents lowers the bound on one event of t's response streams, so
// that a test of the bound need not send 64 MiB.
func LimitEvents(t *HTTPTransport, n int) { t.maxEvent = n }

// SetPause replaces how c waits between task polls, so that tests see the
// pauses without taking them.
func SetPause(c *Client, pause func(ctx context.Context, d time.Duration) error) { c.pause = pause }
