package stream

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachCallsEveryItemOnce(t *testing.T) {
	for _, n := range []int{0, 1, serial - 1, serial, serial + 1, 10 * serial, 10_001} {
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		seen := make([]atomic.Int32, n)
		FanOut(items, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: item %d called %d times", n, i, c)
			}
		}
	}
}

func TestEachSpreadsOverGoroutines(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: Each stays on the caller's goroutine")
	}
	// Every call waits until a call has run on another goroutine, which
	// only a spread over goroutines can bring about.
	var mu sync.Mutex
	gs := map[uint64]bool{}
	both := make(chan struct{})
	var once sync.Once
	items := make([]int, 4*serial)
	FanOut(items, func(int) {
		mu.Lock()
		gs[goid()] = true
		if len(gs) > 1 {
			once.Do(func() { close(both) })
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			t.Error("every call ran on one goroutine")
			once.Do(func() { close(both) })
		}
	})
}

func TestFewItemsStayOnTheCaller(t *testing.T) {
	caller := goid()
	FanOut(make([]int, serial), func(int) {
		if goid() != caller {
			t.Error("a short list went to another goroutine")
		}
	})
}

// goid is the current goroutine's id, read from its stack header.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uint64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
