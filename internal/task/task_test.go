package task

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func newTask(t *testing.T) (*Task, *bool) {
	t.Helper()
	cancelled := new(bool)
	return New("alice", time.Minute, func() { *cancelled = true }), cancelled
}

func TestNewTaskView(t *testing.T) {
	tk, _ := newTask(t)
	if len(tk.ID) != 22 || tk.Owner != "alice" {
		t.Errorf("id %q owner %q", tk.ID, tk.Owner)
	}
	if other, _ := newTask(t); other.ID == tk.ID {
		t.Error("two tasks share an id")
	}
	v := tk.State().View(false)
	if v.Status != Working || v.ResultType != "task" || v.PollIntervalMs != PollInterval.Milliseconds() || v.TTLMs == nil || *v.TTLMs != 60000 {
		t.Errorf("view %+v", v)
	}
	if _, err := time.Parse(time.RFC3339Nano, v.CreatedAt); err != nil {
		t.Errorf("createdAt %q: %v", v.CreatedAt, err)
	}
	if d := tk.State().View(true); d.ResultType != mcp.ResultComplete || d.Result != nil || d.Error != nil || d.InputRequests != nil {
		t.Errorf("detailed view %+v", d)
	}
}

func TestFinish(t *testing.T) {
	tests := []struct {
		name       string
		result     json.RawMessage
		err        *jsonrpc.Error
		stopFirst  bool
		wantStatus string
	}{
		{"completed", json.RawMessage(`{"content":[]}`), nil, false, Completed},
		{"failed", nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"), false, Failed},
		{"cancelled stays cancelled", json.RawMessage(`{}`), nil, true, Cancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, cancelled := newTask(t)
			if tt.stopFirst {
				tk.Stop()
				if !*cancelled {
					t.Error("Stop did not cancel the work")
				}
			}
			tk.Finish(tt.result, tt.err, false)
			tk.Finish(json.RawMessage(`"second"`), nil, false) // an ended task does not change
			v := tk.State().View(true)
			if v.Status != tt.wantStatus {
				t.Fatalf("status %q, want %q", v.Status, tt.wantStatus)
			}
			if !Terminal(v.Status) {
				t.Errorf("%q is not terminal", v.Status)
			}
			switch v.Status {
			case Completed:
				if string(v.Result) != string(tt.result) {
					t.Errorf("result %s", v.Result)
				}
			case Failed:
				if v.Error != tt.err {
					t.Errorf("error %v", v.Error)
				}
			case Cancelled:
				if v.Result != nil || v.Error != nil {
					t.Errorf("cancelled view %+v", v)
				}
			}
		})
	}
}

func TestTerminal(t *testing.T) {
	for status, want := range map[string]bool{Working: false, InputRequired: false, Completed: true, Failed: true, Cancelled: true} {
		if Terminal(status) != want {
			t.Errorf("Terminal(%q) = %v", status, !want)
		}
	}
}

// waitStatus polls the task until it reports status, or fails at the
// test's deadline.
func waitStatus(t *testing.T, tk *Task, status string) *mcp.Task {
	t.Helper()
	var v *mcp.Task
	mcptest.WaitUntil(t, "the task reached "+status, func() bool {
		v = tk.State().View(true)
		return v.Status == status
	})
	return v
}

func TestAskAndAnswer(t *testing.T) {
	tk, _ := newTask(t)
	var got struct{ Action string }
	done := make(chan error, 1)
	go func() {
		done <- tk.Ask(context.Background(), "k1", "elicitation/create", map[string]string{"message": "ok?"}, &got,
			func() bool { return got.Action != "" })
	}()
	v := waitStatus(t, tk, InputRequired)
	if in, ok := v.InputRequests["k1"]; !ok || in.Method != "elicitation/create" {
		t.Fatalf("input requests %+v", v.InputRequests)
	}
	// Unknown keys are ignored; an answer of the wrong shape asks again.
	tk.Answer(map[string]json.RawMessage{"nope": json.RawMessage(`{}`)})
	tk.Answer(map[string]json.RawMessage{"k1": json.RawMessage(`{"other":1}`)})
	waitStatus(t, tk, InputRequired)
	mcptest.WaitUntil(t, "the question is back", func() bool { return tk.State().Inputs["k1"].Method != "" })
	tk.Answer(map[string]json.RawMessage{"k1": json.RawMessage(`{"action":"accept"}`)})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Action != "accept" {
		t.Errorf("answer %+v", got)
	}
	if v := tk.State().View(true); v.Status != Working || v.InputRequests != nil {
		t.Errorf("after the answer: %+v", v)
	}
}

func TestAskEndsWithItsContext(t *testing.T) {
	tk, _ := newTask(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var v any
		done <- tk.Ask(ctx, "k", "roots/list", struct{}{}, &v, func() bool { return true })
	}()
	waitStatus(t, tk, InputRequired)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Ask returned %v", err)
	}
	if v := tk.State().View(true); len(v.InputRequests) != 0 {
		t.Errorf("the question stayed: %+v", v.InputRequests)
	}
}

// TestStopMarksBeforeCancelling: work that ends the moment it is
// cancelled (its Finish racing Stop) leaves the task cancelled, not
// failed or completed.
func TestStopMarksBeforeCancelling(t *testing.T) {
	var tk *Task
	tk = New("alice", time.Minute, func() {
		tk.Finish(nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "context canceled"), false)
	})
	tk.Stop()
	if s := tk.State().View(true).Status; s != Cancelled {
		t.Errorf("status %q after Stop, want %q", s, Cancelled)
	}
}
