package access

import (
	"sync"
	"testing"
)

func TestTakeUpToTheLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		takes int
		want  int // successful takes
	}{
		{"under", 3, 2, 2},
		{"at", 3, 3, 3},
		{"over", 3, 5, 3},
		{"no limit", 0, 1000, 1000},
		{"negative is no limit", -1, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewQuota(tt.limit)
			got := 0
			for range tt.takes {
				if _, ok := c.Take("alice"); ok {
					got++
				}
			}
			if got != tt.want {
				t.Errorf("took %d, want %d", got, tt.want)
			}
		})
	}
}

func TestKeysAreCountedApart(t *testing.T) {
	c := NewQuota(1)
	if _, ok := c.Take("alice"); !ok {
		t.Fatal("alice's first take refused")
	}
	if _, ok := c.Take("alice"); ok {
		t.Error("alice took twice with a limit of 1")
	}
	if _, ok := c.Take("bob"); !ok {
		t.Error("bob refused because of alice")
	}
}

func TestReleaseGivesBackOnce(t *testing.T) {
	c := NewQuota(2)
	r1, _ := c.Take("k")
	r2, _ := c.Take("k")
	r1()
	r1() // a second call gives nothing back
	if got := c.Held("k"); got != 1 {
		t.Fatalf("held %d after one release, want 1", got)
	}
	if _, ok := c.Take("k"); !ok {
		t.Fatal("the released unit cannot be taken again")
	}
	if _, ok := c.Take("k"); ok {
		t.Error("took beyond the limit after a double release")
	}
	r2()
	if got := c.Held("k"); got != 1 {
		t.Errorf("held %d, want 1", got)
	}
}

func TestEmptyKeysAreForgotten(t *testing.T) {
	c := NewQuota(5)
	for i := range 100 {
		r, _ := c.Take(string(rune('a' + i%26)))
		r()
	}
	c.mu.Lock()
	n := len(c.held)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d keys kept after every unit was given back", n)
	}
}

func TestConcurrentTakesNeverExceedTheLimit(t *testing.T) {
	const limit = 10
	c := NewQuota(limit)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		releases []func()
	)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, ok := c.Take("k"); ok {
				mu.Lock()
				releases = append(releases, r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(releases) != limit || c.Held("k") != limit {
		t.Fatalf("%d takes succeeded, %d held; want %d", len(releases), c.Held("k"), limit)
	}
	for _, r := range releases {
		wg.Add(1)
		go func() { defer wg.Done(); r() }()
	}
	wg.Wait()
	if got := c.Held("k"); got != 0 {
		t.Errorf("held %d after every release", got)
	}
}
