//go:build !linux

package stdio

import "io"

// unreadOf returns nil: only Linux tells how much of a pipe is unread.
func unreadOf(io.Writer) func() (int, bool) { return nil }
