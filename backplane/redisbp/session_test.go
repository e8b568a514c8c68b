package redisbp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
)

func TestSessionRoundTrip(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	want := &backplane.Session{
		ID: "s", Version: "2025-06-18", Principal: "u",
		Client: json.RawMessage(`{"name":"c"}`), Capabilities: json.RawMessage(`{"roots":{}}`),
		LogLevel: 3, Subscriptions: []string{"a://1", "a://2"},
		Data:    map[string]json.RawMessage{"cart": json.RawMessage(`[1,2]`), "a:b": json.RawMessage(`"x"`)},
		Created: time.Date(2025, 11, 25, 10, 0, 0, 123456789, time.UTC),
	}
	if err := b.CreateSession(ctx, want, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := b.LoadSession(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded\n%+v\nwant\n%+v", got, want)
	}

	// Created again, a session starts over: no old data, no old streams.
	if err := b.Append(ctx, "s", "st", backplane.Event{Seq: 1}, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err = b.LoadSession(ctx, "s")
	if err != nil || got.Data != nil || got.Subscriptions != nil || got.Client != nil {
		t.Errorf("recreated session: %+v %v", got, err)
	}
	if _, _, err := b.Events(ctx, "s", "st", 0); !errors.Is(err, backplane.ErrNotFound) {
		t.Errorf("stream of the replaced session: %v, want ErrNotFound", err)
	}
}

func TestSetFieldInvalid(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	if err := b.CreateSession(ctx, &backplane.Session{ID: "s", LogLevel: 2}, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, value string }{
		{"nope", `1`},
		{"id", `"other"`},
		{backplane.FieldLogLevel, `"debug"`},
		{backplane.FieldSubscriptions, `{}`},
	} {
		err := b.SetField(ctx, "s", c.field, json.RawMessage(c.value))
		if err == nil || errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("SetField(%q, %s): %v, want an error", c.field, c.value, err)
		}
	}
	if s, err := b.LoadSession(ctx, "s"); err != nil || s.ID != "s" || s.LogLevel != 2 {
		t.Errorf("session after rejected fields: %+v %v", s, err)
	}
}

// TestTTL checks that a session's streams live exactly as long as it.
func TestTTL(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	k := b.keys("s")
	pttls := func() []time.Duration {
		t.Helper()
		var d []time.Duration
		for _, key := range []string{k.session(), k.events(), k.meta()} {
			ttl, err := b.client.PTTL(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			d = append(d, ttl)
		}
		return d
	}
	if err := b.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, "s", "st", backplane.Event{Seq: 1, Data: []byte("x")}, 0); err != nil {
		t.Fatal(err)
	}
	for i, d := range pttls() {
		if d < 59*time.Second || d > time.Minute {
			t.Errorf("key %d: TTL %v after create, want about a minute", i, d)
		}
	}
	if err := b.TouchSession(ctx, "s", time.Hour); err != nil {
		t.Fatal(err)
	}
	for i, d := range pttls() {
		if d < 59*time.Minute || d > time.Hour {
			t.Errorf("key %d: TTL %v after touch, want about an hour", i, d)
		}
	}
	if err := b.TouchSession(ctx, "s", 0); err != nil {
		t.Fatal(err)
	}
	for i, d := range pttls() {
		if d != -1 {
			t.Errorf("key %d: TTL %v after touch with 0, want none (-1)", i, d)
		}
	}
}

// TestClaimRequestsLeavesNoKeyWithoutTTL: ClaimRequests's commands are not
// one atomic step, so the session may be gone when its claims arrive.
// After a delete they meet the marker of the ended session; after the
// keys expired they would create the hash of requests anew, without a
// TTL, and ClaimRequests deletes it. Either way the claim fails with
// ErrNotFound and every key left has a TTL.
func TestClaimRequestsLeavesNoKeyWithoutTTL(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	noKeyWithoutTTL := func(sid string) {
		t.Helper()
		keys, err := b.client.Keys(ctx, b.prefix+":{"+sid+"}:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if ttl, _ := b.client.PTTL(ctx, k).Result(); ttl <= 0 {
				t.Errorf("%s left without a TTL (%v)", k, ttl)
			}
		}
	}
	for i, end := range []struct {
		name string
		end  func(sid string)
	}{
		{"deleted", func(sid string) {
			if ok, err := b.DeleteSession(ctx, sid); !ok || err != nil {
				t.Fatalf("delete: %v %v", ok, err)
			}
		}},
		{"deleted between the revision's read and the claims", func(sid string) {
			// The marker of the end, with the session's hash left as the
			// revision's read found it.
			if err := b.client.Set(ctx, b.keys(sid).requests(), "ended", endedTTL).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"expired", func(sid string) {
			// What expiry does: every key of the session goes at once.
			if err := b.client.Del(ctx, b.keys(sid).all()...).Err(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(end.name, func(t *testing.T) {
			sid := strconv.Itoa(i)
			if err := b.CreateSession(ctx, &backplane.Session{ID: sid}, time.Minute); err != nil {
				t.Fatal(err)
			}
			if _, got, err := b.ClaimRequests(ctx, sid, []string{"1"}, nil); err != nil || !got[0] {
				t.Fatalf("claim in the live session: %v %v", got, err)
			}
			end.end(sid)
			if _, _, err := b.ClaimRequests(ctx, sid, []string{"2", "3"}, []string{"1"}); !errors.Is(err, backplane.ErrNotFound) {
				t.Fatalf("claims after the end: %v, want ErrNotFound", err)
			}
			noKeyWithoutTTL(sid)
			// The claims Begin made before it learnt of the end go back
			// later; that leaves nothing either.
			if _, _, err := b.ClaimRequests(ctx, sid, nil, []string{"2"}); !errors.Is(err, backplane.ErrNotFound) {
				t.Fatalf("release after the end: %v, want ErrNotFound", err)
			}
			noKeyWithoutTTL(sid)
		})
	}
}

// TestClaimRequestsGivesOldSessionsARevision: a session an older version
// stored has no revision; ClaimRequests claims in it all the same and
// gives it revision 0, as Admit and LoadSession then report.
func TestClaimRequestsGivesOldSessionsARevision(t *testing.T) {
	ctx := context.Background()
	b := newNode(t, redistest.Start(t).URL)
	if err := b.CreateSession(ctx, &backplane.Session{ID: "old", LogLevel: 2}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.client.HDel(ctx, b.keys("old").session(), fieldRevision).Err(); err != nil {
		t.Fatal(err)
	}
	rev, got, err := b.ClaimRequests(ctx, "old", []string{"1"}, nil)
	if err != nil || rev != 0 || !got[0] {
		t.Fatalf("claim in an old session: rev %d %v %v", rev, got, err)
	}
	if _, got, _ := b.ClaimRequests(ctx, "old", []string{"1"}, nil); got[0] {
		t.Fatal("the claim was not held")
	}
	if v, err := b.client.HGet(ctx, b.keys("old").session(), fieldRevision).Result(); err != nil || v != "0" {
		t.Fatalf("revision stored: %q %v", v, err)
	}
	if rec, err := b.LoadSession(ctx, "old"); err != nil || rec.LogLevel != 2 || rec.Revision != 0 {
		t.Fatalf("load: %+v %v", rec, err)
	}
}
