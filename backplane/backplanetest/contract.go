// Package backplanetest checks that a backplane.Backplane implementation
// keeps the contract the Specter router relies on. Run it from the
// implementation's tests: backplanetest.Run(t, newBackplane).
package backplanetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter/backplane"
)

// Run checks the contract. newBP returns a fresh, empty backplane; it is
// called once per subtest, and two backplanes it returns must share
// state as two nodes of one deployment do (for Memory: return the same
// one).
func Run(t *testing.T, newBP func(t *testing.T) (node1, node2 backplane.Backplane)) {
	ctx := context.Background()
	t.Run("sessions", func(t *testing.T) {
		a, b := newBP(t)
		if _, err := b.LoadSession(ctx, "nope"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("load unknown: %v", err)
		}
		s := &backplane.Session{ID: "s1", Version: "2025-11-25", Principal: "u1", Client: json.RawMessage(`{"name":"c","version":"1"}`),
			Capabilities: json.RawMessage(`{}`), LogLevel: 1, Created: time.Now().Truncate(time.Millisecond)}
		if err := a.CreateSession(ctx, s, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := b.LoadSession(ctx, "s1")
		if err != nil || got.Principal != "u1" || got.Version != "2025-11-25" || string(got.Client) != `{"name":"c","version":"1"}` || got.LogLevel != 1 {
			t.Fatalf("load from the other node: %+v %v", got, err)
		}
		must(t, b.SetField(ctx, "s1", backplane.FieldLogLevel, json.RawMessage(`4`)))
		must(t, b.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://x", true, 2))
		must(t, b.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://x", true, 2)) // there already
		must(t, b.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://y", true, 2))
		if err := a.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://z", true, 2); !errors.Is(err, backplane.ErrTooMany) {
			t.Errorf("a member past the limit: %v", err)
		}
		must(t, a.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://y", false, 2))
		must(t, a.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://nope", false, 2))
		must(t, b.SetMember(ctx, "s1", backplane.FieldTopics, "orders", true, 0))
		must(t, b.SetMember(ctx, "s1", backplane.FieldTopics, "prices", true, 0))
		must(t, b.SetField(ctx, "s1", backplane.DataField("cart"), json.RawMessage(`{"items":2}`)))
		got, _ = a.LoadSession(ctx, "s1")
		if got.LogLevel != 4 || !slices.Equal(got.Subscriptions, []string{"a://x"}) || !slices.Equal(got.Topics, []string{"orders", "prices"}) ||
			string(got.Data["cart"]) != `{"items":2}` {
			t.Fatalf("fields: %+v", got)
		}
		// A member leaves room for another once removed.
		must(t, a.SetMember(ctx, "s1", backplane.FieldSubscriptions, "a://z", true, 2))
		if err := a.SetMember(ctx, "nope", backplane.FieldSubscriptions, "a://x", true, 0); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("set member on unknown: %v", err)
		}
		if err := a.SetField(ctx, "nope", backplane.FieldLogLevel, json.RawMessage(`1`)); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("set on unknown: %v", err)
		}
		if err := a.TouchSession(ctx, "nope", time.Minute); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("touch unknown: %v", err)
		}
		ok1, err1 := a.DeleteSession(ctx, "s1")
		ok2, err2 := b.DeleteSession(ctx, "s1")
		if !ok1 || ok2 || err1 != nil || err2 != nil {
			t.Fatalf("delete twice: %v %v %v %v", ok1, err1, ok2, err2)
		}
		if _, err := a.LoadSession(ctx, "s1"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatal("deleted session still loads")
		}
	})
	t.Run("expiry", func(t *testing.T) {
		a, b := newBP(t)
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "e1"}, 1500*time.Millisecond))
		time.Sleep(700 * time.Millisecond)
		must(t, b.TouchSession(ctx, "e1", 1500*time.Millisecond))
		time.Sleep(1000 * time.Millisecond)
		if _, err := a.LoadSession(ctx, "e1"); err != nil {
			t.Fatalf("touched session expired early: %v", err)
		}
		time.Sleep(2 * time.Second)
		if _, err := a.LoadSession(ctx, "e1"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("idle session did not expire: %v", err)
		}
	})
	t.Run("events", func(t *testing.T) {
		a, b := newBP(t)
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "s"}, time.Minute))
		for i := uint64(1); i <= 10; i++ {
			must(t, a.Append(ctx, "s", "st", backplane.Event{Seq: i, Data: []byte(fmt.Sprintf("event-%02d", i)), Last: i == 10}, 1<<20))
		}
		evs, lost, err := b.Events(ctx, "s", "st", 4)
		if err != nil || lost || len(evs) != 6 || evs[0].Seq != 5 || string(evs[5].Data) != "event-10" || !evs[5].Last {
			t.Fatalf("events after 4: %+v lost=%v %v", evs, lost, err)
		}
		if _, _, err := b.Events(ctx, "s", "other", 0); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("events of a stream never appended to: %v, want ErrNotFound", err)
		}
		// A stream whose only event is a marker at Seq 0 exists, empty.
		must(t, a.Append(ctx, "s", "marked", backplane.Event{Seq: 0}, 100))
		if evs, _, err := b.Events(ctx, "s", "marked", 0); err != nil || len(evs) != 0 {
			t.Fatalf("marked stream: %v %v", evs, err)
		}
		// Its head is the marker, with the record it carries.
		must(t, a.Append(ctx, "s", "headed", backplane.Event{Seq: 0, Data: []byte(`[7]`)}, 100))
		must(t, a.Append(ctx, "s", "headed", backplane.Event{Seq: 1, Data: []byte("x")}, 100))
		if h, err := b.Head(ctx, "s", "headed"); err != nil || h.Seq != 0 || string(h.Data) != "[7]" {
			t.Fatalf("head of a marked stream: %+v %v", h, err)
		}
		if h, err := b.Head(ctx, "s", "st"); err != nil || h.Seq != 1 || string(h.Data) != "event-01" {
			t.Fatalf("head of a stream: %+v %v", h, err)
		}
		if _, err := b.Head(ctx, "s", "other"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("head of a stream never appended to: %v, want ErrNotFound", err)
		}
		must(t, a.Append(ctx, "s", "gone", backplane.Event{Seq: 1, Data: []byte("x")}, 100))
		must(t, b.DropStream(ctx, "s", "gone"))
		if _, _, err := a.Events(ctx, "s", "gone", 0); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("a dropped stream: %v, want ErrNotFound", err)
		}
		must(t, b.DropStream(ctx, "nope", "gone")) // dropping what is not there is fine
		// 8 bytes per event, limit 40: only the newest 5 stay.
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "small"}, time.Minute))
		for i := uint64(1); i <= 10; i++ {
			must(t, a.Append(ctx, "small", "st", backplane.Event{Seq: i, Data: []byte(fmt.Sprintf("event-%02d", i))}, 40))
		}
		evs, lost, _ = b.Events(ctx, "small", "st", 3)
		if !lost || len(evs) != 5 || evs[0].Seq != 6 {
			t.Fatalf("over the limit: %+v lost=%v", evs, lost)
		}
		if _, lost, _ = b.Events(ctx, "small", "st", 5); lost {
			t.Fatal("lost reported for a cursor at the oldest kept event")
		}
		if err := a.Append(ctx, "nope", "st", backplane.Event{Seq: 1}, 10); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("append to unknown session: %v", err)
		}
		if _, err := a.DeleteSession(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Events(ctx, "s", "st", 0); !errors.Is(err, backplane.ErrNotFound) {
			t.Errorf("events of a deleted session: %v", err)
		}
	})
	t.Run("admit", func(t *testing.T) {
		a, b := newBP(t)
		if _, _, err := a.Admit(ctx, "nope", time.Minute, []string{"1"}, nil); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("admit to an unknown session: %v", err)
		}
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "ad", Principal: "u1"}, 1500*time.Millisecond))
		rec, got, err := a.Admit(ctx, "ad", 1500*time.Millisecond, []string{"1", "2"}, nil)
		if err != nil || rec.Principal != "u1" || len(got) != 2 || !got[0] || !got[1] {
			t.Fatalf("first admit: %+v %v %v", rec, got, err)
		}
		// The same keys are held across nodes until released.
		must(t, a.SetField(ctx, "ad", backplane.FieldLogLevel, json.RawMessage(`5`)))
		rec, got, err = b.Admit(ctx, "ad", 1500*time.Millisecond, []string{"2", "3"}, []string{"1"})
		if err != nil || rec.LogLevel != 5 || got[0] || !got[1] {
			t.Fatalf("admit from the other node: %+v %v %v", rec, got, err)
		}
		if _, got, _ = a.Admit(ctx, "ad", 1500*time.Millisecond, []string{"1"}, nil); !got[0] {
			t.Fatal("a released key is not claimable")
		}
		// Admit extends the session's life as TouchSession does.
		time.Sleep(800 * time.Millisecond)
		if _, _, err := b.Admit(ctx, "ad", 1500*time.Millisecond, nil, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1000 * time.Millisecond)
		if _, err := a.LoadSession(ctx, "ad"); err != nil {
			t.Fatalf("admitted session expired early: %v", err)
		}
		// Request keys go with the session.
		_, _ = a.DeleteSession(ctx, "ad")
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "ad"}, time.Minute))
		if _, got, _ = b.Admit(ctx, "ad", time.Minute, []string{"2"}, nil); !got[0] {
			t.Fatal("a request key outlived its session")
		}
	})
	t.Run("claim requests", func(t *testing.T) {
		a, b := newBP(t)
		if _, _, err := a.ClaimRequests(ctx, "nope", []string{"1"}, nil); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("claim in an unknown session: %v", err)
		}
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "cr"}, time.Minute))
		rev, got, err := a.ClaimRequests(ctx, "cr", []string{"1", "2"}, nil)
		if err != nil || rev != 0 || !slices.Equal(got, []bool{true, true}) {
			t.Fatalf("first claims: rev %d %v %v, want rev 0 [true true]", rev, got, err)
		}
		// Keys are held across nodes, and across Admit and ClaimRequests.
		if _, got, _ := b.Admit(ctx, "cr", time.Minute, []string{"1"}, nil); got[0] {
			t.Fatal("Admit got a key ClaimRequests holds")
		}
		if _, got, _ := b.ClaimRequests(ctx, "cr", []string{"2", "3"}, []string{"1"}); !slices.Equal(got, []bool{false, true}) {
			t.Fatalf("claims from the other node: %v, want [false true]", got)
		}
		if _, got, _ := a.ClaimRequests(ctx, "cr", []string{"1"}, nil); !got[0] {
			t.Fatal("a key released by ClaimRequests is not claimable")
		}
		// Each change of a field makes the revision larger; a change
		// that changes nothing need not, and a read never does.
		last := rev
		for i, change := range []func() error{
			func() error { return b.SetField(ctx, "cr", backplane.FieldLogLevel, json.RawMessage(`3`)) },
			func() error { return b.SetField(ctx, "cr", backplane.DataField("k"), json.RawMessage(`"v"`)) },
			func() error { return a.SetMember(ctx, "cr", backplane.FieldSubscriptions, "a://x", true, 0) },
			func() error { return a.SetMember(ctx, "cr", backplane.FieldTopics, "t", true, 0) },
			func() error { return b.SetMember(ctx, "cr", backplane.FieldSubscriptions, "a://x", false, 0) },
		} {
			must(t, change())
			rev, _, err := a.ClaimRequests(ctx, "cr", nil, nil)
			if err != nil || rev <= last {
				t.Fatalf("change %d: revision %d after %d: %v", i, rev, last, err)
			}
			rec, err := b.LoadSession(ctx, "cr")
			if err != nil || rec.Revision != rev {
				t.Fatalf("change %d: the record loads at revision %d, ClaimRequests says %d: %v", i, rec.Revision, rev, err)
			}
			if rec, _, _ := b.Admit(ctx, "cr", time.Minute, nil, nil); rec.Revision != rev {
				t.Fatalf("change %d: Admit returns revision %d, ClaimRequests %d", i, rec.Revision, rev)
			}
			last = rev
		}
		if rev, _, _ := b.ClaimRequests(ctx, "cr", nil, nil); rev != last {
			t.Fatalf("reads changed the revision from %d to %d", last, rev)
		}
		// A deleted session claims nothing, and its keys do not come back
		// with a new session of the same id.
		_, _ = b.DeleteSession(ctx, "cr")
		if _, _, err := a.ClaimRequests(ctx, "cr", []string{"9"}, []string{"1"}); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("claim in a deleted session: %v", err)
		}
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "cr"}, time.Minute))
		if rev, got, _ := b.ClaimRequests(ctx, "cr", []string{"1", "9"}, nil); rev != 0 || !slices.Equal(got, []bool{true, true}) {
			t.Fatalf("claims in the new session: rev %d %v, want 0 [true true]", rev, got)
		}
	})
	t.Run("claims", func(t *testing.T) {
		a, b := newBP(t)
		ok1, _ := a.Claim(ctx, "k", time.Minute)
		ok2, _ := b.Claim(ctx, "k", time.Minute)
		if !ok1 || ok2 {
			t.Fatalf("claims: %v %v", ok1, ok2)
		}
		must(t, a.Release(ctx, "k"))
		if ok, _ := b.Claim(ctx, "k", time.Minute); !ok {
			t.Fatal("released key not claimable")
		}
	})
	t.Run("tasks", func(t *testing.T) {
		a, b := newBP(t)
		if _, err := b.LoadTask(ctx, "nope"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("load unknown task: %v", err)
		}
		exp := time.Now().Add(time.Minute).Truncate(time.Millisecond)
		put := func(bp backplane.Backplane, id, owner, data string, final bool, exp time.Time) bool {
			t.Helper()
			ok, err := bp.PutTask(ctx, &backplane.Task{ID: id, Owner: owner, Final: final, Expires: exp, Data: json.RawMessage(data)})
			must(t, err)
			return ok
		}
		if !put(a, "t1", "u1", `{"status":"working"}`, false, exp) || !put(b, "t1", "u1", `{"status":"input_required"}`, false, exp) {
			t.Fatal("a task that did not end was not replaced")
		}
		got, err := a.LoadTask(ctx, "t1")
		if err != nil || got.Owner != "u1" || string(got.Data) != `{"status":"input_required"}` || !got.Expires.Equal(exp) {
			t.Fatalf("load from the other node: %+v %v", got, err)
		}
		if !put(b, "t1", "u1", `{"status":"cancelled"}`, true, exp) || put(a, "t1", "u1", `{"status":"completed"}`, true, exp) {
			t.Fatal("a final task was replaced")
		}
		if got, _ := a.LoadTask(ctx, "t1"); string(got.Data) != `{"status":"cancelled"}` || !got.Final {
			t.Fatalf("final task: %+v", got)
		}
		put(a, "t0", "u1", `{}`, false, exp.Add(-time.Second))
		put(a, "t2", "u2", `{}`, false, exp)
		put(a, "t3", "u1", `{}`, true, time.Now().Add(1200*time.Millisecond))
		list, err := b.ListTasks(ctx, "u1")
		if err != nil || len(list) != 3 || list[0].ID != "t3" || list[1].ID != "t0" || list[2].ID != "t1" {
			t.Fatalf("list u1: %+v %v", list, err)
		}
		time.Sleep(1500 * time.Millisecond)
		if _, err := b.LoadTask(ctx, "t3"); !errors.Is(err, backplane.ErrNotFound) {
			t.Fatalf("an expired task loads: %v", err)
		}
		if list, _ := a.ListTasks(ctx, "u1"); len(list) != 2 {
			t.Fatalf("an expired task is listed: %+v", list)
		}
		if list, _ := a.ListTasks(ctx, "nobody"); len(list) != 0 {
			t.Fatalf("tasks of nobody: %+v", list)
		}
		unlisted := &backplane.Task{ID: "t9", Owner: "u1", Unlisted: true, Expires: time.Now().Add(time.Minute), Data: json.RawMessage(`{}`)}
		if ok, err := a.PutTask(ctx, unlisted); !ok || err != nil {
			t.Fatalf("put unlisted: %v %v", ok, err)
		}
		if got, err := b.LoadTask(ctx, "t9"); err != nil || !got.Unlisted {
			t.Fatalf("load unlisted: %+v %v", got, err)
		}
		if list, _ := b.ListTasks(ctx, "u1"); len(list) != 2 {
			t.Fatalf("an unlisted task is listed: %+v", list)
		}
	})
	t.Run("leases", func(t *testing.T) {
		a, b := newBP(t)
		la, okA := a.(backplane.Leases)
		lb, okB := b.(backplane.Leases)
		if !okA || !okB {
			t.Skip("the backplane keeps no leases")
		}
		must(t, lb.Heartbeat(ctx, "n2", time.Hour, []string{"x"}))
		must(t, la.Heartbeat(ctx, "n1", time.Hour, []string{"old"}))
		must(t, la.Heartbeat(ctx, "n1", 20*time.Millisecond, []string{"w1", "w2"})) // replaces the work
		// n1 stops renewing, as a node that died: once its lease lapses
		// one node, and only one, takes it over with its work.
		deadline := time.Now().Add(10 * time.Second)
		var node string
		var work []string
		for node == "" && time.Now().Before(deadline) {
			var err error
			node, work, err = lb.TakeOver(ctx, time.Hour)
			must(t, err)
		}
		slices.Sort(work)
		if node != "n1" || !slices.Equal(work, []string{"w1", "w2"}) {
			t.Fatalf("take over: %q %q, want n1 [w1 w2]", node, work)
		}
		if node, _, err := la.TakeOver(ctx, time.Hour); node != "" || err != nil {
			t.Fatalf("a second take over of a claimed node: %q %v", node, err)
		}
		must(t, lb.Done(ctx, "n1"))
		must(t, la.Heartbeat(ctx, "n1", time.Hour, nil)) // the node restarted
		if node, _, err := lb.TakeOver(ctx, time.Hour); node != "" || err != nil {
			t.Fatalf("take over with every lease live: %q %v", node, err)
		}
		must(t, la.Done(ctx, "n1"))
		must(t, lb.Done(ctx, "n2"))
	})
	t.Run("quotas", func(t *testing.T) {
		a, b := newBP(t)
		qa, okA := a.(backplane.Quotas)
		qb, okB := b.(backplane.Quotas)
		if !okA || !okB {
			t.Skip("the backplane counts no quotas")
		}
		hold := func(q backplane.Quotas, entry string, ttl time.Duration) bool {
			ok, err := q.Hold(ctx, "streams p1", entry, ttl, 2)
			must(t, err)
			return ok
		}
		// Two nodes share a limit of 2.
		if !hold(qa, "a1", time.Hour) || !hold(qb, "b1", 50*time.Millisecond) {
			t.Fatal("the first two entries were refused")
		}
		if hold(qa, "a2", time.Hour) {
			t.Fatal("a third entry past the limit of 2, on the other node")
		}
		if !hold(qa, "a1", time.Hour) {
			t.Error("an entry already held was refused")
		}
		if ok, err := qa.Hold(ctx, "streams p2", "a2", time.Hour, 2); !ok || err != nil {
			t.Errorf("another key shares the count: %v %v", ok, err)
		}
		// b1 is not renewed, as on a node that died: once it runs out it
		// leaves room.
		deadline := time.Now().Add(10 * time.Second)
		for !hold(qa, "a2", time.Hour) {
			if time.Now().After(deadline) {
				t.Fatal("an entry that ran out still counts")
			}
			time.Sleep(10 * time.Millisecond)
		}
		must(t, qa.Unhold(ctx, "streams p1", "a2"))
		if !hold(qb, "b2", 200*time.Millisecond) {
			t.Fatal("an entry let go still counts")
		}
		// Renewed entries outlive their first ttl; an entry let go is not
		// brought back by a renewal.
		must(t, qa.Unhold(ctx, "streams p1", "a1"))
		must(t, qb.Renew(ctx, "streams p1", []string{"b2", "a1"}, time.Hour))
		time.Sleep(300 * time.Millisecond) // past b2's first ttl
		if !hold(qa, "a3", time.Hour) || hold(qa, "a4", time.Hour) {
			t.Error("after a renewal of b2 and a1, let go: want room for exactly one more")
		}

		// Sessions count while they exist.
		holdSession := func(q backplane.Quotas, id string) bool {
			ok, err := q.HoldSession(ctx, "sessions p1", id, 2)
			must(t, err)
			return ok
		}
		for _, id := range []string{"q1", "q2", "q3", "q5"} {
			must(t, a.CreateSession(ctx, &backplane.Session{ID: id}, time.Hour))
		}
		if !holdSession(qa, "q1") || !holdSession(qb, "q2") {
			t.Fatal("the first two sessions were refused")
		}
		if holdSession(qa, "q3") {
			t.Fatal("a third session past the limit of 2, on the other node")
		}
		if _, err := b.DeleteSession(ctx, "q1"); err != nil {
			t.Fatal(err)
		}
		if !holdSession(qa, "q3") {
			t.Fatal("a deleted session still counts")
		}
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "q3"}, 20*time.Millisecond)) // it expires
		must(t, a.CreateSession(ctx, &backplane.Session{ID: "q4"}, time.Hour))
		deadline = time.Now().Add(10 * time.Second)
		for !holdSession(qb, "q4") {
			if time.Now().After(deadline) {
				t.Fatal("an expired session still counts")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if holdSession(qa, "q5") {
			t.Error("a session past the limit after the expired one left")
		}
	})
	t.Run("messages", func(t *testing.T) {
		a, b := newBP(t)
		var mu sync.Mutex
		got := map[string][]string{}
		sub := func(node string) func() {
			stop, err := map[string]backplane.Backplane{"a": a, "b": b}[node].Subscribe(func(m *backplane.Message) {
				mu.Lock()
				got[node] = append(got[node], m.Kind+":"+m.Session)
				mu.Unlock()
			})
			must(t, err)
			return stop
		}
		stopA, stopB := sub("a"), sub("b")
		defer stopA()
		must(t, a.Publish(ctx, &backplane.Message{Kind: backplane.KindNotify, Session: "x"}))
		must(t, b.Publish(ctx, &backplane.Message{Kind: backplane.KindWake, Session: "y", Data: json.RawMessage(`{"n":1}`)}))
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			na, nb := len(got["a"]), len(got["b"])
			mu.Unlock()
			if na == 2 && nb == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("messages: %v", got)
			}
			time.Sleep(10 * time.Millisecond)
		}
		stopB()
		must(t, a.Publish(ctx, &backplane.Message{Kind: backplane.KindEnd, Session: "z"}))
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		if len(got["b"]) != 2 {
			t.Errorf("a stopped subscriber still got messages: %v", got["b"])
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
