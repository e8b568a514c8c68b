package redisbp

import (
	"context"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// BenchmarkAppendEvents measures what a streamed response costs the
// backplane: appending a 256-byte event to a stream buffer trimmed at
// 64 KiB, and reading back the events after the previous one, as the
// node holding a client's stream does on every wake-up.
func BenchmarkAppendEvents(b *testing.B) {
	ctx := context.Background()
	bp := newNode(b, redistest.Start(b).URL)
	if err := bp.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Hour); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 256)
	var seq uint64
	b.Run("Append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seq++
			if err := bp.Append(ctx, "s", "append", backplane.Event{Seq: seq, Data: data}, 64<<10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Append+Events", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seq++
			if err := bp.Append(ctx, "s", "both", backplane.Event{Seq: seq, Data: data}, 64<<10); err != nil {
				b.Fatal(err)
			}
			evs, _, err := bp.Events(ctx, "s", "both", seq-1)
			if err != nil || len(evs) != 1 {
				b.Fatal(len(evs), err)
			}
		}
	})
	// A client resuming from the start reads the whole buffer.
	b.Run("Events(all)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := bp.Events(ctx, "s", "both", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
