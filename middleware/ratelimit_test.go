package middleware

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/principal"
)

// fakeClock is a RateLimitConfig.Now that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var rlOK = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

// rlRequest is a request from ip, on behalf of principal id when set.
func rlRequest(ip, id string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = ip + ":40000"
	if id != "" {
		r = r.WithContext(principal.NewContext(r.Context(), &principal.Principal{ID: id}))
	}
	return r
}

func rlStatus(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func TestRateLimitBurstThen429(t *testing.T) {
	clock := newFakeClock()
	h := RateLimitWithConfig(RateLimitConfig{Rate: 1, Burst: 3, Now: clock.Now})(rlOK)
	for i := range 3 {
		if rec := rlStatus(h, rlRequest("192.0.2.1", "")); rec.Code != http.StatusOK {
			t.Fatalf("request %d of the burst: status %d", i+1, rec.Code)
		}
	}
	rec := rlStatus(h, rlRequest("192.0.2.1", ""))
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("after the burst: status %d, want 429", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: rate limit exceeded, retry after 1 s"}}`
	if rec.Body.String() != want {
		t.Errorf("body\n got %s\nwant %s", rec.Body, want)
	}
}

func TestRateLimitRetryAfterRoundsUp(t *testing.T) {
	clock := newFakeClock()
	h := RateLimitWithConfig(RateLimitConfig{Rate: 0.4, Burst: 1, Now: clock.Now})(rlOK) // a token every 2.5 s
	rlStatus(h, rlRequest("192.0.2.1", ""))
	for _, step := range []struct {
		advance time.Duration
		want    string
	}{{0, "3"}, {time.Second, "2"}, {1400 * time.Millisecond, "1"}} {
		clock.Advance(step.advance)
		rec := rlStatus(h, rlRequest("192.0.2.1", ""))
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != step.want {
			t.Errorf("after +%v: status %d, Retry-After %q, want 429 and %s", step.advance, rec.Code, rec.Header().Get("Retry-After"), step.want)
		}
	}
	clock.Advance(100 * time.Millisecond) // 2.5 s in all
	if rec := rlStatus(h, rlRequest("192.0.2.1", "")); rec.Code != http.StatusOK {
		t.Errorf("after Retry-After: status %d", rec.Code)
	}
}

func TestRateLimitRefill(t *testing.T) {
	clock := newFakeClock()
	h := RateLimitWithConfig(RateLimitConfig{Rate: 2, Burst: 2, Now: clock.Now})(rlOK)
	allowed := func() int {
		n := 0
		for range 10 {
			if rlStatus(h, rlRequest("192.0.2.1", "")).Code == http.StatusOK {
				n++
			}
		}
		return n
	}
	if n := allowed(); n != 2 {
		t.Errorf("first burst: %d allowed, want 2", n)
	}
	clock.Advance(500 * time.Millisecond)
	if n := allowed(); n != 1 {
		t.Errorf("after 0.5 s at 2/s: %d allowed, want 1", n)
	}
	clock.Advance(time.Hour)
	if n := allowed(); n != 2 {
		t.Errorf("after an hour: %d allowed, want the burst of 2", n)
	}
}

func TestRateLimitKeys(t *testing.T) {
	clock := newFakeClock()
	h := RateLimitWithConfig(RateLimitConfig{Rate: 1, Burst: 1, Now: clock.Now})(rlOK)
	steps := []struct {
		ip, id string
		want   int
	}{
		{"192.0.2.1", "", 200},
		{"192.0.2.1", "", 429},
		{"192.0.2.2", "", 200},    // another IP has its own bucket
		{"192.0.2.1", "ada", 200}, // a principal is keyed by ID, not by its IP
		{"192.0.2.9", "ada", 429}, // … wherever it comes from
		{"192.0.2.1", "bob", 200},
		{"192.0.2.3", "192.0.2.3", 200}, // an ID that reads like an IP …
		{"192.0.2.3", "", 200},          // … does not share that IP's bucket
	}
	for i, s := range steps {
		if rec := rlStatus(h, rlRequest(s.ip, s.id)); rec.Code != s.want {
			t.Errorf("step %d (ip %s, principal %q): status %d, want %d", i, s.ip, s.id, rec.Code, s.want)
		}
	}
}

func TestRateLimitCustomKeyAndSkipper(t *testing.T) {
	h := RateLimitWithConfig(RateLimitConfig{
		Rate:    1,
		Burst:   1,
		Key:     func(r *http.Request) string { return r.Header.Get("X-Tenant") },
		Skipper: func(r *http.Request) bool { return r.URL.Path == "/health" },
	})(rlOK)
	for i, s := range []struct {
		tenant, path string
		want         int
	}{{"a", "/mcp", 200}, {"a", "/mcp", 429}, {"b", "/mcp", 200}, {"a", "/health", 200}} {
		r := httptest.NewRequest(http.MethodGet, s.path, nil)
		r.Header.Set("X-Tenant", s.tenant)
		if rec := rlStatus(h, r); rec.Code != s.want {
			t.Errorf("step %d: status %d, want %d", i, rec.Code, s.want)
		}
	}
}

func TestRateLimitEviction(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(RateLimitConfig{Rate: 1, Burst: 1, MaxKeys: 100, Now: clock.Now})
	for i := range 10_000 {
		l.take(t.Context(), bucketKey{id: strconv.Itoa(i)})
	}
	if n := len(l.buckets); n != 100 {
		t.Fatalf("%d buckets after 10,000 keys, want MaxKeys (100)", n)
	}
	n := 0
	for b := l.lru.next; b != &l.lru; b = b.next {
		n++
	}
	if n != 100 {
		t.Fatalf("LRU list holds %d buckets, want 100", n)
	}
	// The newest keys are kept (and still empty), the oldest were dropped.
	if ok, _, _ := l.take(t.Context(), bucketKey{id: "9999"}); ok {
		t.Error("key 9999 was evicted although it is among the newest")
	}
	if ok, _, _ := l.take(t.Context(), bucketKey{id: "0"}); !ok {
		t.Error("key 0 was not evicted")
	}

	// Using a key keeps it: with MaxKeys 2, a, b, a, c evicts b.
	l = newLimiter(RateLimitConfig{Rate: 1, Burst: 1, MaxKeys: 2, Now: clock.Now})
	for _, k := range []string{"a", "b", "a", "c"} {
		l.take(t.Context(), bucketKey{id: k})
	}
	if _, ok := l.buckets[bucketKey{id: "b"}]; ok {
		t.Error("b survived although a was used more recently")
	}
	if _, ok := l.buckets[bucketKey{id: "a"}]; !ok {
		t.Error("a was evicted although b was older")
	}
}

func TestRateLimitConcurrent(t *testing.T) {
	clock := newFakeClock()
	h := RateLimitWithConfig(RateLimitConfig{Rate: 1, Burst: 100, MaxKeys: 8, Now: clock.Now})(rlOK)
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				ip := "192.0.2.1"
				if i%2 == 1 {
					ip = "198.51.100." + strconv.Itoa(g) // churn other keys through the LRU
				}
				if rlStatus(h, rlRequest(ip, "")).Code == http.StatusOK && ip == "192.0.2.1" {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	// The shared key may have been evicted and refilled by the churn, so
	// only bounds hold: the burst at least, far fewer than all 1,600.
	if n := allowed.Load(); n < 100 || n >= 1600 {
		t.Errorf("shared key: %d of 1,600 allowed", n)
	}
}

func TestRateLimitOverHTTP(t *testing.T) {
	e := echo.New()
	ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	// Different limits per route: one instance each.
	e.POST("/strict", ok, echo.WrapMiddleware(RateLimit(1, 1)))
	e.POST("/loose", ok, echo.WrapMiddleware(RateLimit(1, 3)))
	srv := httptest.NewServer(e)
	defer srv.Close()
	codes := func(path string, n int) (out []int) {
		for range n {
			resp, err := http.Post(srv.URL+path, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out = append(out, resp.StatusCode)
		}
		return out
	}
	if got := codes("/strict", 2); got[0] != 200 || got[1] != 429 {
		t.Errorf("/strict: %v, want [200 429]", got)
	}
	if got := codes("/loose", 4); got[2] != 200 || got[3] != 429 {
		t.Errorf("/loose: %v, want three 200 then 429", got)
	}
}

func TestRateLimitInvalidConfig(t *testing.T) {
	for _, cfg := range []RateLimitConfig{
		{Rate: 0, Burst: 1},
		{Rate: -1, Burst: 1},
		{Rate: 1, Burst: 0},
		{Rate: 1, Burst: 1, MaxKeys: -1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RateLimitWithConfig(%+v) did not panic", cfg)
				}
			}()
			RateLimitWithConfig(cfg)
		}()
	}
}

type discardWriter struct{ h http.Header }

func (w discardWriter) Header() http.Header         { return w.h }
func (w discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w discardWriter) WriteHeader(int)             {}

// BenchmarkRateLimitAllow measures the allow path of an authenticated
// request: key lookup, refill, LRU update, and the budget handed on.
func BenchmarkRateLimitAllow(b *testing.B) {
	h := RateLimit(1e9, 1e9)(rlOK)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r = r.WithContext(principal.NewContext(context.Background(), &principal.Principal{ID: "ada"}))
	w := discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// TestRateLimitHandsOnItsBudget: the handler behind the limit (the
// router, for the further requests of a batch) takes from the bucket of
// the request's key, which the next request then finds spent.
func TestRateLimitHandsOnItsBudget(t *testing.T) {
	clock := newFakeClock()
	var taken []bool
	var waits []time.Duration
	h := RateLimitWithConfig(RateLimitConfig{Rate: 2, Burst: 3, Now: clock.Now})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 3 {
			ok, wait := reqctx.TakeBudget(r.Context())
			taken, waits = append(taken, ok), append(waits, wait)
		}
	}))
	if rec := rlStatus(h, rlRequest("192.0.2.1", "ada")); rec.Code != http.StatusOK {
		t.Fatalf("first request: status %d", rec.Code)
	}
	if want := []bool{true, true, false}; !slices.Equal(taken, want) {
		t.Errorf("takes behind the limit: %v, want %v (the request took the first of 3 tokens)", taken, want)
	}
	if waits[2] != 500*time.Millisecond {
		t.Errorf("wait of the refused take: %v, want 500ms at 2/s", waits[2])
	}
	if rec := rlStatus(h, rlRequest("192.0.2.1", "ada")); rec.Code != http.StatusTooManyRequests {
		t.Errorf("next request: status %d, want 429: the budget's takes count", rec.Code)
	}
	if rec := rlStatus(h, rlRequest("192.0.2.1", "bob")); rec.Code != http.StatusOK {
		t.Errorf("another principal: status %d", rec.Code)
	}
}
