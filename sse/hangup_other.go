//go:build !linux

package sse

// watchHangup starts the goroutine that notices s's client hanging up.
func watchHangup(s *Writer) { go s.watch() }

// unwatchHangup does nothing: the watching goroutine ends with the
// connection.
func unwatchHangup(*Writer) {}
