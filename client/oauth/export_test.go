package oauth

import "time"

// RequestTimeout is the bound on each of t's discovery, registration and
// token requests.
func RequestTimeout(t *Transport) time.Duration { return t.hc.Timeout }
