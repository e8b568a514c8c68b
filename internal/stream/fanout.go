package stream

import (
	"runtime"
	"sync"
)

// serial is how many items are not worth a second goroutine.
const serial = 256

// FanOut calls f for every item, on up to GOMAXPROCS goroutines, and
// returns when all calls have. Each goroutine takes a contiguous share:
// the delivery of one notification to thousands of streams, each a write
// of its own, is bound by the cost of those writes.
func FanOut[T any](items []T, f func(T)) {
	n := min(runtime.GOMAXPROCS(0), (len(items)+serial-1)/serial)
	if n <= 1 {
		for _, it := range items {
			f(it)
		}
		return
	}
	var wg sync.WaitGroup
	size := (len(items) + n - 1) / n
	for start := size; start < len(items); start += size {
		share := items[start:min(start+size, len(items))]
		wg.Go(func() {
			for _, it := range share {
				f(it)
			}
		})
	}
	for _, it := range items[:size] {
		f(it)
	}
	wg.Wait()
}
