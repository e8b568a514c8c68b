//go:build !unix

package conformance

import "os/exec"

// killGroup leaves cmd as it is: without process groups, cancellation kills
// npx only, and cmd.WaitDelay bounds the wait for its child.
func killGroup(cmd *exec.Cmd) {}
