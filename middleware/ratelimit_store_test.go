package middleware

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/internal/reqctx"
)

// countStore is a RateStore that gives each key burst tokens and never
// refills, recording the keys asked for; with down set it fails.
type countStore struct {
	mu    sync.Mutex
	taken map[string]int
	keys  []string
	down  bool
}

func (s *countStore) Take(_ context.Context, key string, rate float64, burst int) (bool, time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, key)
	if s.down {
		return false, 0, errors.New("connection refused")
	}
	if s.taken == nil {
		s.taken = map[string]int{}
	}
	if s.taken[key] >= burst {
		return false, time.Duration(float64(time.Second) / rate), nil
	}
	s.taken[key]++
	return true, 0, nil
}

// TestRateLimitStore: with a Store, the limit takes its tokens there,
// keyed by principal or address, for the HTTP request and for the further
// requests of a batch alike.
func TestRateLimitStore(t *testing.T) {
	store := &countStore{}
	var taken []bool
	h := RateLimitWithConfig(RateLimitConfig{Rate: 2, Burst: 2, Store: store})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, _ := reqctx.TakeBudget(r.Context())
		taken = append(taken, ok)
	}))
	if rec := rlStatus(h, rlRequest("192.0.2.1", "ada")); rec.Code != http.StatusOK {
		t.Fatalf("first request: %d", rec.Code)
	}
	if !slices.Equal(taken, []bool{true}) {
		t.Errorf("the batch's second request: %v, want the store's second token", taken)
	}
	rec := rlStatus(h, rlRequest("192.0.2.1", "ada"))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("third take: %d, Retry-After %q; want 429 after 1 s", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := rlStatus(h, rlRequest("192.0.2.1", "")); rec.Code != http.StatusOK {
		t.Errorf("the address, anonymous: %d", rec.Code)
	}
	want := []string{"principal:ada", "principal:ada", "principal:ada", "ip:192.0.2.1", "ip:192.0.2.1"}
	if !slices.Equal(store.keys, want) {
		t.Errorf("keys asked of the store: %q, want %q", store.keys, want)
	}
}

// TestRateLimitStoreDown: while the store fails, requests pass with one
// warning (fail open), or are refused with 503 (FailClosed).
func TestRateLimitStoreDown(t *testing.T) {
	var logged bytes.Buffer
	log := zerolog.New(&logged)
	store := &countStore{down: true}
	open := RateLimitWithConfig(RateLimitConfig{Rate: 1, Burst: 1, Store: store, Logger: &log})(rlOK)
	for i := range 3 {
		if rec := rlStatus(open, rlRequest("192.0.2.1", "ada")); rec.Code != http.StatusOK {
			t.Fatalf("request %d with the store down, failing open: %d", i, rec.Code)
		}
	}
	if n := bytes.Count(logged.Bytes(), []byte("\n")); n != 1 || !bytes.Contains(logged.Bytes(), []byte("connection refused")) {
		t.Errorf("%d warnings for 3 requests, want 1 naming the error: %s", n, logged.String())
	}
	closed := RateLimitWithConfig(RateLimitConfig{Rate: 1, Burst: 1, Store: store, Logger: &log, FailClosed: true})(rlOK)
	rec := rlStatus(closed, rlRequest("192.0.2.1", "ada"))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!bytes.Contains(rec.Body.Bytes(), []byte("rate limit's store is unreachable")) {
		t.Errorf("failing closed: %d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}
