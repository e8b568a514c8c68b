package client

// EventLimit is the bound on one event of t's response streams.
func EventLimit(t *HTTPTransport) int { return t.eventLimit() }

// LimitEvents lowers the bound on one event of t's response streams, so
// that a test of the bound need not send 64 MiB.
func LimitEvents(t *HTTPTransport, n int) { t.maxEvent = n }
