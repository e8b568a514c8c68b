package redisbp

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

// TestEventSizes checks the size accounting of appendScript for every
// base64 padding, empty and nil data, and seqs beyond Lua's exact
// integers.
func TestEventSizes(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	if err := b.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	const base = 1<<62 + 1
	total := 0
	for i := range 8 {
		var data []byte
		if i > 0 {
			data = make([]byte, i-1)
		}
		total += len(data)
		if err := b.Append(ctx, "s", "st", backplane.Event{Seq: base + uint64(i), Data: data}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if size := metaSize(t, b, "s", "st"); size != total {
		t.Fatalf("size %d, want %d", size, total)
	}
	// A 6-byte event with a limit of 12 drops all but Seq base+7 (6 bytes).
	if err := b.Append(ctx, "s", "st", backplane.Event{Seq: base + 8, Data: make([]byte, 6)}, 12); err != nil {
		t.Fatal(err)
	}
	if size := metaSize(t, b, "s", "st"); size != 12 {
		t.Fatalf("size %d after trimming, want 12", size)
	}
	evs, lost, err := b.Events(ctx, "s", "st", base+5)
	if err != nil || !lost || len(evs) != 2 || evs[0].Seq != base+7 {
		t.Fatalf("after trimming: %+v lost=%v %v", evs, lost, err)
	}
	if _, lost, _ := b.Events(ctx, "s", "st", base+6); lost {
		t.Error("lost reported at the last dropped seq: the seq lost its precision")
	}
}

// metaSize returns the size counter of a stream.
func metaSize(t *testing.T, b *Backplane, session, stream string) int {
	t.Helper()
	n, err := b.client.HGet(context.Background(), b.keys(session).meta(), "z:"+stream).Int()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestEventsOrder compares Events with backplane.Memory's for every
// cursor, on streams whose seqs only grow (read from the tail), repeat,
// or go back (scanned whole), with and without trimming.
func TestEventsOrder(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	m := backplane.NewMemory()
	for _, c := range []struct {
		name  string
		seqs  []uint64
		limit int
	}{
		{"growing", []uint64{1, 2, 3, 4, 5, 6}, 0},
		{"repeating", []uint64{0, 0, 1, 2, 2, 3}, 0},
		{"going back", []uint64{1, 3, 2, 5, 4, 6}, 0},
		{"growing, trimmed", []uint64{1, 2, 3, 4, 5, 6}, 3},
		{"going back, trimmed", []uint64{1, 3, 2, 5, 4, 6}, 3},
	} {
		for _, bp := range []backplane.Backplane{b, m} {
			if err := bp.CreateSession(ctx, &backplane.Session{ID: c.name}, time.Minute); err != nil {
				t.Fatal(err)
			}
			for _, seq := range c.seqs {
				if err := bp.Append(ctx, c.name, "st", backplane.Event{Seq: seq, Data: []byte{byte(seq)}}, c.limit); err != nil {
					t.Fatal(err)
				}
			}
		}
		for after := range uint64(8) {
			got, gotLost, err := b.Events(ctx, c.name, "st", after)
			if err != nil {
				t.Fatal(err)
			}
			want, wantLost, _ := m.Events(ctx, c.name, "st", after)
			if !reflect.DeepEqual(got, want) || gotLost != wantLost {
				t.Errorf("%s, after %d: %v lost=%v, want %v lost=%v", c.name, after, got, gotLost, want, wantLost)
			}
		}
	}
}
