package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/middleware"
)

// callBatch is a batch of n tools/call of tool, with ids from first.
func callBatch(tool string, first, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, first+i, tool)
	}
	b.WriteByte(']')
	return b.String()
}

// batchAnswer is one element of a batch's JSON answer.
type batchAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			RetryAfter int `json:"retryAfter"`
		} `json:"data"`
	} `json:"error"`
}

// TestRateLimitCountsBatchRequests: a JSON-RPC batch takes one token per
// request from its caller's bucket, not one per POST (issue 9 item 2).
func TestRateLimitCountsBatchRequests(t *testing.T) {
	var ran atomic.Int64
	// The limit's clock moves only when the test says, so that the bucket
	// refills only between steps.
	var elapsed atomic.Int64
	start := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	as := newAuthServer(t, authSetup{
		rate: &middleware.RateLimitConfig{Rate: 10, Burst: 30, Now: now},
		declare: func(r *specter.Router) {
			r.Tool("count", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
				ran.Add(1)
				return specter.Reply("ok")
			}, specter.Description("Counts its calls"))
		},
	})
	token := as.token(t, "greedy", "")
	c := as.session(t, token, mcp.Version20250326)
	h := bearer(token)
	h.Set("Mcp-Session-Id", c.SessionID)
	h.Set("Mcp-Protocol-Version", c.Version)
	elapsed.Add(int64(time.Hour)) // the bucket is full again: 30 tokens

	post := func(first, n int) (int, []batchAnswer) {
		t.Helper()
		resp, body := as.post(t, "", h, strings.NewReader(callBatch("count", first, n)))
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil
		}
		var answers []batchAnswer
		if err := json.Unmarshal(body, &answers); err != nil {
			t.Fatalf("batch answer: %v: %.300s", err, body)
		}
		return resp.StatusCode, answers
	}
	// check verifies that every request from first to first+n-1 is
	// answered once, wantRan of them with a result and the others with
	// the rate-limit error.
	check := func(answers []batchAnswer, first, n, wantRan int) {
		t.Helper()
		seen := map[int]bool{}
		results := 0
		for _, a := range answers {
			if a.ID < first || a.ID >= first+n || seen[a.ID] {
				t.Fatalf("answer with id %d (seen before: %v)", a.ID, seen[a.ID])
			}
			seen[a.ID] = true
			switch {
			case a.Error == nil:
				results++
			case a.Error.Code != -32000 || a.Error.Data.RetryAfter != 1 ||
				a.Error.Message != "Too Many Requests: rate limit exceeded, retry after 1 s":
				t.Errorf("request %d: error %+v; want -32000, retry after 1 s, data.retryAfter 1", a.ID, *a.Error)
			}
		}
		if len(seen) != n || results != wantRan {
			t.Errorf("%d answers to %d requests, %d results; want %d answers, %d results", len(seen), n, results, n, wantRan)
		}
	}

	status, answers := post(1, 100)
	if status != http.StatusOK {
		t.Fatalf("batch of 100: status %d", status)
	}
	check(answers, 1, 100, 30)
	if n := ran.Load(); n != 30 {
		t.Errorf("the tool ran %d times for a batch of 100 at burst 30, want 30", n)
	}

	// The count carries across requests: the bucket is empty, so the
	// next POST is refused whole …
	if status, _ := post(101, 5); status != http.StatusTooManyRequests {
		t.Errorf("the next batch: status %d, want 429", status)
	}
	// … and half a second later (5 tokens at 10/s) a batch of 10 runs 5.
	elapsed.Add(int64(500 * time.Millisecond))
	status, answers = post(201, 10)
	if status != http.StatusOK {
		t.Fatalf("batch of 10 after 0.5 s: status %d", status)
	}
	check(answers, 201, 10, 5)
	if n := ran.Load(); n != 35 {
		t.Errorf("the tool ran %d times in all, want 35", n)
	}

	// Another principal has a bucket of its own.
	other := as.token(t, "patient", "")
	o := as.session(t, other, mcp.Version20250326)
	oh := bearer(other)
	oh.Set("Mcp-Session-Id", o.SessionID)
	oh.Set("Mcp-Protocol-Version", o.Version)
	resp, body := as.post(t, "", oh, strings.NewReader(callBatch("count", 1, 3)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another principal's batch: status %d", resp.StatusCode)
	}
	var oa []batchAnswer
	if err := json.Unmarshal(body, &oa); err != nil {
		t.Fatal(err)
	}
	check(oa, 1, 3, 3)
}
