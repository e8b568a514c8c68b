package mcp

// Protocol revisions this package knows.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// LatestSessionVersion is the newest revision negotiated by initialize.
const LatestSessionVersion = Version20251125

// SessionVersions are the session-era revisions a server negotiates with
// initialize, newest first.
var SessionVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// IsSessionVersion reports whether v is negotiated with initialize.
func IsSessionVersion(v string) bool {
	switch v {
	case Version20251125, Version20250618, Version20250326, Version20241105:
		return true
	}
	return false
}

// AllowsBatch reports whether revision v accepts JSON-RPC batches: only
// 2025-03-26 did.
func AllowsBatch(v string) bool { return v == Version20250326 }

// SupportsPriming reports whether clients of revision v expect the SSE
// priming event (an id with empty data) that makes streams resumable.
func SupportsPriming(v string) bool { return v >= Version20251125 }

// HasStructuredContent reports whether revision v knows structuredContent,
// outputSchema and titles (introduced in 2025-06-18).
func HasStructuredContent(v string) bool { return v >= Version20250618 }
