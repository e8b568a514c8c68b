package observe

import "testing"

func TestNames(t *testing.T) {
	for v, want := range map[interface{ String() string }]string{
		Request: "request", Work: "work", Outbound: "outbound",
		OK: "ok", ToolError: "tool_error", InputRequired: "input_required", Failed: "error", Cancelled: "cancelled",
		Outcome(99): "unknown",
	} {
		if got := v.String(); got != want {
			t.Errorf("%#v: %q, want %q", v, got, want)
		}
	}
}
