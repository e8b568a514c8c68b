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

// TestTouchesCoalesce: a session's life is extended once per window, and
// the memory of touches stays bounded by the sessions of the last window.
func TestTouchesCoalesce(t *testing.T) {
	var tc touches
	now := time.Now()
	if !tc.due("s", time.Hour, now) || tc.due("s", time.Hour, now.Add(500*time.Millisecond)) {
		t.Fatal("want one touch per second")
	}
	if !tc.due("s", time.Hour, now.Add(time.Second)) {
		t.Fatal("no touch after a second")
	}
	if tc.due("short", time.Second, now) && tc.due("short", time.Second, now.Add(50*time.Millisecond)) {
		t.Fatal("a 1s session touched twice within a tenth of its TTL")
	}
	tc.forget("s")
	if !tc.due("s", time.Hour, now.Add(time.Second)) {
		t.Fatal("no touch after forget")
	}
	for i := range 5000 {
		tc.due(strconv.Itoa(i), time.Hour, now.Add(time.Duration(i)*time.Second))
	}
	if n := len(tc.last); n > 2048 {
		t.Errorf("%d touches remembered, want the map swept", n)
	}
}
