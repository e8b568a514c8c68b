package stateless

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter/jsonrpc"
)

func TestRead(t *testing.T) {
	params := func(extra string) json.RawMessage { return json.RawMessage(`{` + extra + `"_meta":` + meta + `}`) }
	ok := headers(HeaderProtocolVersion, "2026-07-28", HeaderMethod, "tools/call", HeaderName, "echo")
	tests := []struct {
		name   string
		method string
		params json.RawMessage
		h      http.Header
		status int // 0: read
		code   int
	}{
		{"a tools/call", "tools/call", params(`"name":"echo","arguments":{"a":1},`), ok, 0, 0},
		{"params that do not decode", "tools/call", json.RawMessage(`{"name":7}`), ok, 400, jsonrpc.CodeInvalidParams},
		{"no _meta", "tools/call", json.RawMessage(`{"name":"echo"}`), ok, 400, jsonrpc.CodeInvalidParams},
		{"no version header", "tools/call", params(`"name":"echo",`), headers(HeaderMethod, "tools/call", HeaderName, "echo"), 400, jsonrpc.CodeHeaderMismatch},
		{"another name", "tools/call", params(`"name":"other",`), ok, 400, jsonrpc.CodeHeaderMismatch},
		{"an unnamed method", "tools/list", params(``), headers(HeaderProtocolVersion, "2026-07-28", HeaderMethod, "tools/list"), 0, 0},
		{"a task named by its id", "tasks/get", params(`"taskId":"t1",`), headers(HeaderProtocolVersion, "2026-07-28", HeaderMethod, "tasks/get", HeaderName, "t1"), 0, 0},
		{"no HTTP headers at all (in process)", "tools/call", params(`"name":"echo",`), nil, 0, 0},
		{"no HTTP headers, no _meta", "tools/call", json.RawMessage(`{"name":"echo"}`), nil, 400, jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, call, refused := Read(tt.h, &jsonrpc.Message{Method: tt.method, Params: tt.params})
			if tt.status == 0 {
				if refused != nil || p == nil || call == nil || call.Meta.ProtocolVersion != "2026-07-28" {
					t.Fatalf("Read = %+v, %+v, %v; want a call", p, call, refused)
				}
				if want := tt.method == "tools/call"; call.InputAllowed != want {
					t.Errorf("InputAllowed = %v; want %v", call.InputAllowed, want)
				}
				return
			}
			if refused == nil || refused.Status != tt.status || refused.RPC.Code != tt.code {
				t.Fatalf("Read refused with %v; want %d and %d", refused, tt.status, tt.code)
			}
		})
	}
}

func TestError(t *testing.T) {
	nf := jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "Resource not found").WithData(map[string]any{"uri": "a://b"})
	got := Error(nf)
	if got.Code != jsonrpc.CodeInvalidParams || got.Message != nf.Message || got == nf || nf.Code != jsonrpc.CodeResourceNotFound {
		t.Fatalf("Error(not found) = %+v (original now %+v); want a copy as invalid params", got, nf)
	}
	other := jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
	if Error(other) != other {
		t.Fatal("Error changed an error the wire reports as is")
	}
}
