package task

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// cluster returns two tables sharing one backplane, as two nodes do.
func cluster(t *testing.T) (a, b *Table) {
	t.Helper()
	bp := backplane.NewMemory()
	table := func() *Table {
		tt := NewTable(Config{Backplane: bp, Log: zerolog.Nop(),
			Listed: func(owner string) bool { return owner != "anonymous" },
			Context: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Second)
			},
			Publish: func(m *backplane.Message) { _ = bp.Publish(context.Background(), m) }})
		stop, _ := bp.Subscribe(func(m *backplane.Message) {
			if m.Kind == backplane.KindTask {
				tt.Receive(m)
			}
		})
		t.Cleanup(stop)
		return tt
	}
	return table(), table()
}

func add(t *testing.T, tt *Table, owner string, ttl time.Duration) (*Task, chan struct{}) {
	t.Helper()
	stopped := make(chan struct{})
	tk := New(owner, ttl, func() {
		select {
		case <-stopped:
		default:
			close(stopped)
		}
	})
	if err := tt.Add(tk, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tk.Stop)
	return tk, stopped
}

func TestTableAnswersForTasksOfOtherNodes(t *testing.T) {
	a, b := cluster(t)
	tk, stopped := add(t, a, "alice", time.Hour)
	if s, refused := b.Get(tk.ID, "alice"); refused != nil || s.Status != Working || s.ID != tk.ID {
		t.Fatalf("B reads A's task: %+v %v", s, refused)
	}
	for _, who := range []struct{ id, owner string }{{tk.ID, "bob"}, {"nope", "alice"}} {
		if _, refused := b.Get(who.id, who.owner); refused == nil || refused.RPC.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("B reads %+v: %v; want an unknown task", who, refused)
		}
	}
	// A question asked on A is answered through B.
	var got struct{ Action string }
	asked := make(chan error, 1)
	go func() {
		asked <- tk.Ask(context.Background(), "k", mcp.MethodElicit, struct{}{}, &got, func() bool { return got.Action != "" })
	}()
	mcptest.WaitUntil(t, "B sees the question", func() bool { s, _ := b.Get(tk.ID, "alice"); return s.Status == InputRequired })
	if s, _ := b.Get(tk.ID, "alice"); s.Inputs["k"].Method != mcp.MethodElicit {
		t.Fatalf("B does not see the question: %+v", s)
	}
	if refused := b.Update(tk.ID, "alice", map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}); refused != nil {
		t.Fatal(refused)
	}
	if err := <-asked; err != nil || got.Action != "accept" {
		t.Fatalf("the answer through B: %+v %v", got, err)
	}
	if list, refused := b.List("alice"); refused != nil || len(list) != 1 || list[0].ID != tk.ID {
		t.Fatalf("B lists %+v %v", list, refused)
	}
	// A cancel on B stops the work on A; the work's late outcome changes nothing.
	s, ended, refused := b.Cancel(tk.ID, "alice")
	if refused != nil || ended || s.Status != Cancelled {
		t.Fatalf("cancel on B: %+v %v %v", s, ended, refused)
	}
	<-stopped
	tk.Finish(json.RawMessage(`{}`), nil, false)
	if s, _ := b.Get(tk.ID, "alice"); s.Status != Cancelled {
		t.Fatalf("after the work finished: %s", s.Status)
	}
	if _, ended, _ := b.Cancel(tk.ID, "alice"); !ended {
		t.Error("a second cancel does not report the task ended")
	}
}

func TestTableWait(t *testing.T) {
	a, b := cluster(t)
	tk, _ := add(t, a, "alice", time.Hour)
	go func() {
		time.Sleep(50 * time.Millisecond)
		tk.Finish(json.RawMessage(`{"content":[]}`), nil, false)
	}()
	for _, tt := range []*Table{a, b} {
		if s, refused := tt.Wait(context.Background(), tk.ID, "alice"); refused != nil || s.Status != Completed {
			t.Fatalf("wait: %+v %v", s, refused)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	other, _ := add(t, a, "alice", time.Hour)
	if _, refused := b.Wait(ctx, other.ID, "alice"); refused == nil {
		t.Error("a wait whose context ended returned no refusal")
	}
}

func TestTableDropsAndStopsExpiredTasks(t *testing.T) {
	a, b := cluster(t)
	tk, stopped := add(t, a, "alice", 20*time.Millisecond)
	<-stopped
	waitStatus(t, tk, Cancelled)
	mcptest.WaitUntil(t, "the expired task is no longer held", func() bool { return a.local(tk.ID) == nil })
	mcptest.WaitUntil(t, "the expired task is no longer readable", func() bool { _, refused := b.Get(tk.ID, "alice"); return refused != nil })
}

func TestTableServe(t *testing.T) {
	a, b := cluster(t)
	tk, _ := add(t, a, "alice", time.Hour)
	if v, refused := b.Serve(mcp.MethodTasksGet, tk.ID, "alice", nil); refused != nil || v.(*mcp.Task).TaskID != tk.ID {
		t.Fatalf("tasks/get = %+v, %v; want the task's view", v, refused)
	}
	if v, refused := b.Serve(mcp.MethodTasksUpdate, tk.ID, "alice", nil); refused != nil || v == nil {
		t.Fatalf("tasks/update = %v, %v", v, refused)
	}
	if _, refused := b.Serve(mcp.MethodTasksCancel, tk.ID, "alice", nil); refused != nil {
		t.Fatal(refused)
	}
	waitStatus(t, tk, Cancelled)
}

func TestPayload(t *testing.T) {
	s := &State{ID: "t1", Status: Completed, Result: json.RawMessage(`{"content":[],"_meta":{"k":1}}`)}
	raw, err := s.Payload()
	var got struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err != nil || json.Unmarshal(raw, &got) != nil || string(got.Meta[mcp.MetaRelatedTask]) != `{"taskId":"t1"}` || string(got.Meta["k"]) != "1" {
		t.Fatalf("payload %s %v", raw, err)
	}
	if _, err := (&State{Status: Failed, Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "x")}).Payload(); err == nil || err.Code != jsonrpc.CodeInternalError {
		t.Errorf("failed payload: %v", err)
	}
	if _, err := (&State{Status: Cancelled}).Payload(); err == nil {
		t.Error("a cancelled task has a result")
	}
}

// A holder's live tasks and the bytes they keep are bounded, one task's
// too; a task over a bound fails keeping only the reason, and an expired
// task gives its share back.
func TestTableLimits(t *testing.T) {
	a, _ := cluster(t)
	a.cfg.Limits = Limits{Tasks: 3, Bytes: 400, Result: 250}
	start := func(holder string, ttl time.Duration) (*Task, error) {
		tk := New("o:"+holder, ttl, func() {})
		tk.Holder = holder
		return tk, a.Add(tk, nil)
	}
	result := func(n int) json.RawMessage { return json.RawMessage(`"` + string(make([]byte, n-2)) + `"`) }
	t1, _ := start("h", time.Hour)
	t2, _ := start("h", time.Hour)
	t3, _ := start("h", 20*time.Millisecond)
	if _, err := start("h", time.Hour); err == nil {
		t.Error("a fourth live task of one holder was taken")
	}
	if _, err := start("other", time.Hour); err != nil {
		t.Errorf("another holder's task: %v", err)
	}
	t1.Finish(result(300), nil, false) // over Result
	t2.Finish(result(200), nil, false)
	t3.Finish(result(210), nil, false) // over Bytes with t2's 200 and t1's reason
	for i, tc := range []struct {
		tk     *Task
		status string
	}{{t1, Failed}, {t2, Completed}, {t3, Failed}} {
		s, _ := a.Get(tc.tk.ID, tc.tk.Owner)
		if s.Status != tc.status || tc.status == Failed && (s.Error == nil || s.Error.Code != codeOverLimit || s.Result != nil) {
			t.Errorf("task %d: %s %+v %s; want %s", i+1, s.Status, s.Error, s.Result, tc.status)
		}
	}
	// Once t3 expires, its slot is free again.
	mcptest.WaitUntil(t, "the expired task frees its holder's slot", func() bool { _, err := start("h", time.Hour); return err == nil })
}

// TestTableIndexesOnlyListedOwners: the tasks of an owner nobody lists
// can be read and cancelled on every node, but the backplane keeps no
// index of them.
func TestTableIndexesOnlyListedOwners(t *testing.T) {
	a, b := cluster(t)
	tk, _ := add(t, a, "anonymous", time.Minute)
	if _, refused := b.Get(tk.ID, "anonymous"); refused != nil {
		t.Fatalf("get: %v", refused)
	}
	if list, refused := b.List("anonymous"); refused != nil || len(list) != 0 {
		t.Fatalf("the unlisted owner's tasks: %+v %v", list, refused)
	}
	add(t, a, "alice", time.Minute)
	if list, refused := b.List("alice"); refused != nil || len(list) != 1 {
		t.Fatalf("alice's tasks: %+v %v", list, refused)
	}
}
