package task

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/mcptest"
)

// TestTableRetriesAChangeRedisMissed: a task that ends while Redis is
// down reaches the other nodes as ended once Redis is back, rather than
// staying "working" there forever.
func TestTableRetriesAChangeRedisMissed(t *testing.T) {
	redis := redistest.Start(t)
	table := func() *Table {
		bp, err := redisbp.New(context.Background(), redis.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bp.Close() })
		return NewTable(Config{Backplane: bp, Log: zerolog.Nop(), Publish: func(*backplane.Message) {},
			Context: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Second)
			}})
	}
	a, b := table(), table()
	tk, _ := add(t, a, "alice", time.Minute)

	redis.Stop()
	tk.Finish(json.RawMessage(`{"ok":true}`), nil, false)
	redis.Restart(t) // empty: only the retry can bring the task back

	// Polling another node's view, which has no signal to wait on.
	mcptest.WaitUntil(t, "the other node saw the task end", func() bool {
		s, refused := b.Get(tk.ID, "alice")
		return refused == nil && s.Status == Completed
	})
}
