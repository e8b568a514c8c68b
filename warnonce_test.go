package specter

import (
	"strconv"
	"sync"
	"testing"
)

func TestWarnedKeysFirst(t *testing.T) {
	var k warnedKeys
	if !k.First("a") || k.First("a") || !k.First("b") {
		t.Fatal("First must report a key new exactly once")
	}
	for i := 0; i < 2*maxWarnedKeys; i++ {
		k.First(strconv.Itoa(i))
	}
	if k.First("late") {
		t.Fatal("a full set remembered another key")
	}
}

func TestWarnedKeysFirstConcurrently(t *testing.T) {
	var k warnedKeys
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k.First("same") {
				mu.Lock()
				firsts++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firsts != 1 {
		t.Fatalf("%d goroutines saw the key first; want 1", firsts)
	}
}
