package probe

import (
	"context"
	"errors"
	"testing"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

type mark struct{}

func TestStartWithoutAProbeChangesNothing(t *testing.T) {
	ctx := context.Background()
	got, end := Start(nil, ctx, observe.Op{Method: "tools/call"})
	if got != ctx || end != nil {
		t.Errorf("Start(nil) = %v, end %v", got, end != nil)
	}
	got, end = Child(ctx, observe.Op{Kind: observe.Work})
	if got != ctx || end == nil {
		t.Fatal("Child without a probe must return ctx and an end to call")
	}
	end(observe.End{}) // does nothing
}

func TestChildUsesTheProbeOfItsRequest(t *testing.T) {
	var ops []observe.Op
	var ends []observe.End
	p := func(ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
		ops = append(ops, op)
		return context.WithValue(ctx, mark{}, op.Kind), func(e observe.End) { ends = append(ends, e) }
	}
	ctx, end := Start(p, context.Background(), observe.Op{Method: "tools/call", Name: "greet"})
	wctx, wend := Child(ctx, observe.Op{Kind: observe.Work, Method: "tools/call"})
	if wctx.Value(mark{}) != observe.Work {
		t.Error("the child's context is not the probe's")
	}
	wend(Err(errors.New("boom")))
	end(observe.End{Outcome: observe.OK})
	if len(ops) != 2 || ops[1].Kind != observe.Work || len(ends) != 2 || ends[0].Outcome != observe.Failed || ends[0].Err == nil {
		t.Errorf("ops %+v ends %+v", ops, ends)
	}
	if e := Err(nil); e.Outcome != observe.OK || e.Err != nil {
		t.Errorf("Err(nil) = %+v", e)
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		result any
		code   int
		want   observe.Outcome
	}{
		{&mcp.CallToolResult{}, 0, observe.OK},
		{&mcp.CallToolResult{IsError: true}, 0, observe.ToolError},
		{&mcp.InputRequiredResult{}, 0, observe.InputRequired},
		{nil, jsonrpc.CodeInvalidParams, observe.Failed},
		{nil, jsonrpc.CodeRequestCancelled, observe.Cancelled},
		{map[string]any{}, 0, observe.OK},
	} {
		if got := Outcome(tc.result, tc.code); got != tc.want {
			t.Errorf("Outcome(%T, %d) = %v, want %v", tc.result, tc.code, got, tc.want)
		}
	}
}
