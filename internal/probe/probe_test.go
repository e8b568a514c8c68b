package probe

import (
	"context"
	"errors"
	"net/http"
	"reflect"
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
	for _, start := range []func(context.Context) (context.Context, func(observe.End)){
		Work, func(ctx context.Context) (context.Context, func(observe.End)) { return Outbound(ctx, "roots/list") },
	} {
		got, end = start(ctx)
		if got != ctx || end == nil {
			t.Fatal("a child without a probe must return ctx and an end to call")
		}
		end(observe.End{}) // does nothing
	}
}

func TestChildUsesTheProbeOfItsRequest(t *testing.T) {
	var ops []observe.Op
	var ends []observe.End
	p := func(ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
		ops = append(ops, op)
		return context.WithValue(ctx, mark{}, op.Kind), func(e observe.End) { ends = append(ends, e) }
	}
	ctx, end := Start(p, context.Background(), observe.Op{Method: "tools/call", Name: "greet", ID: []byte("7"),
		Version: "2025-11-25", SessionID: "s1", Header: http.Header{"Traceparent": {"00-…"}}})
	wctx, wend := Work(ctx)
	if wctx.Value(mark{}) != observe.Work {
		t.Error("the child's context is not the probe's")
	}
	_, oend := Outbound(wctx, "elicitation/create")
	oend(observe.End{})
	wend(Err(errors.New("boom")))
	end(observe.End{Outcome: observe.OK})
	want := []observe.Op{
		{Method: "tools/call", Name: "greet", ID: []byte("7"), Version: "2025-11-25", SessionID: "s1", Header: http.Header{"Traceparent": {"00-…"}}},
		{Kind: observe.Work, Method: "tools/call", Name: "greet", ID: []byte("7"), Version: "2025-11-25", SessionID: "s1"},
		{Kind: observe.Outbound, Method: "elicitation/create", Version: "2025-11-25", SessionID: "s1"},
	}
	if !reflect.DeepEqual(ops, want) || len(ends) != 3 || ends[1].Outcome != observe.Failed || ends[1].Err == nil {
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
