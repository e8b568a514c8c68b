//go:build !unix

package main

import "os/exec"

// detach leaves cmd as it is where process groups are not Unix's.
func detach(*exec.Cmd) {}
