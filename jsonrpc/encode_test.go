package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestAppendResultEchoesID(t *testing.T) {
	tests := []struct {
		name string
		body string // a request whose id is echoed
		want string
	}{
		{"number", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"big number", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, `{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`},
		{"exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, `{"jsonrpc":"2.0","id":1e3,"result":{}}`},
		{"fraction", `{"jsonrpc":"2.0","id":-0.50,"method":"ping"}`, `{"jsonrpc":"2.0","id":-0.50,"result":{}}`},
		{"string", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, `{"jsonrpc":"2.0","id":"abc","result":{}}`},
		{"string with escapes", `{"jsonrpc":"2.0","id":"a\u00e9\"\\b","method":"ping"}`, `{"jsonrpc":"2.0","id":"a\u00e9\"\\b","result":{}}`},
		{"numeric string", `{"jsonrpc":"2.0","id":"1","method":"ping"}`, `{"jsonrpc":"2.0","id":"1","result":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			got := AppendResult(nil, msgs[0].ID, json.RawMessage(`{}`))
			if string(got) != tt.want {
				t.Errorf("AppendResult = %s, want %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("AppendResult produced invalid JSON: %s", got)
			}
		})
	}
}

func TestAppendErrorEchoesID(t *testing.T) {
	for _, raw := range []string{`7`, `"abc"`, `"a\u00e9\"b"`, `1.0e2`, `-1`} {
		msgs, _, err := Parse([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"method":"x"}`))
		if err != nil {
			t.Fatalf("id %s: %v", raw, err)
		}
		got := string(AppendError(nil, msgs[0].ID, Errorf(CodeMethodNotFound, "no %s", "x")))
		want := `{"jsonrpc":"2.0","id":` + raw + `,"error":{"code":-32601,"message":"no x"}}`
		if got != want {
			t.Errorf("AppendError = %s, want %s", got, want)
		}
	}
}

func TestAppendResultZeroID(t *testing.T) {
	got := string(AppendResult(nil, nil, json.RawMessage(`1`)))
	if want := `{"jsonrpc":"2.0","id":null,"result":1}`; got != want {
		t.Errorf("AppendResult = %s, want %s", got, want)
	}
}

func TestAppendError(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		err  *Error
		want string
	}{
		{"zero id omitted", nil, Errorf(CodeParseError, "parse error"), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`},
		{"empty id omitted", ID{}, Errorf(CodeInvalidRequest, "bad"), `{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"}}`},
		{"with data", IntID(1), Errorf(CodeInvalidParams, "bad").WithData(map[string]int{"n": 1}), `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"n":1}}}`},
		{"message escaped", StringID("x"), &Error{Code: 1, Message: "a \"q\" <b>"}, `{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"a \"q\" \u003cb\u003e"}}`},
		{"unencodable data dropped", IntID(2), (&Error{Code: CodeInternalError, Message: "m"}).WithData(math.Inf(1)), `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"m"}}`},
		{"channel data dropped", IntID(3), (&Error{Code: CodeInternalError, Message: "m"}).WithData(make(chan int)), `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"m"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendError(nil, tt.id, tt.err)
			if string(got) != tt.want {
				t.Errorf("AppendError = %s, want %s", got, tt.want)
			}
			msgs, _, err := Parse(got)
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			if k := msgs[0].Kind(); k != KindErrorResponse {
				t.Errorf("output Kind = %v", k)
			}
		})
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	dst := []byte("prefix:")
	got := AppendResult(dst, IntID(1), json.RawMessage(`true`))
	if want := `prefix:{"jsonrpc":"2.0","id":1,"result":true}`; string(got) != want {
		t.Errorf("AppendResult = %s, want %s", got, want)
	}
	got = AppendError([]byte("p"), nil, Errorf(1, "m"))
	if want := `p{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`; string(got) != want {
		t.Errorf("AppendError = %s, want %s", got, want)
	}
	got = AppendRequest([]byte("p"), nil, "m", nil)
	if want := `p{"jsonrpc":"2.0","method":"m"}`; string(got) != want {
		t.Errorf("AppendRequest = %s, want %s", got, want)
	}
}

func TestAppendRequest(t *testing.T) {
	tests := []struct {
		name   string
		id     ID
		method string
		params json.RawMessage
		want   string
		kind   Kind
	}{
		{"request with params", IntID(5), "tools/call", json.RawMessage(`{"name":"x"}`), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}`, KindRequest},
		{"request without params", StringID("a"), "ping", nil, `{"jsonrpc":"2.0","id":"a","method":"ping"}`, KindRequest},
		{"notification with params", nil, "notifications/progress", json.RawMessage(`{"progress":1}`), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, KindNotification},
		{"notification without params", nil, "notifications/initialized", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification},
		{"empty params omitted", IntID(1), "ping", json.RawMessage{}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest},
		{"method escaped", IntID(1), `a"b`, nil, `{"jsonrpc":"2.0","id":1,"method":"a\"b"}`, KindRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendRequest(nil, tt.id, tt.method, tt.params)
			if string(got) != tt.want {
				t.Errorf("AppendRequest = %s, want %s", got, tt.want)
			}
			msgs, _, err := Parse(got)
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			m := msgs[0]
			if m.Kind() != tt.kind || m.Method != tt.method || m.ID.Key() != tt.id.Key() {
				t.Errorf("round trip: kind %v method %q id %q", m.Kind(), m.Method, m.ID)
			}
		})
	}
}

func TestErrorWithData(t *testing.T) {
	orig := Errorf(CodeInvalidParams, "bad %s", "x")
	withA := orig.WithData("a")
	withB := withA.WithData([]int{1})
	if orig.Data != nil {
		t.Errorf("orig.Data = %v, want nil", orig.Data)
	}
	if withA == orig || withB == withA {
		t.Error("WithData returned the receiver")
	}
	if withA.Data != "a" {
		t.Errorf("withA.Data = %v", withA.Data)
	}
	if !reflect.DeepEqual(withB.Data, []int{1}) {
		t.Errorf("withB.Data = %v", withB.Data)
	}
	for _, e := range []*Error{orig, withA, withB} {
		if e.Code != CodeInvalidParams || e.Message != "bad x" {
			t.Errorf("code/message changed: %+v", e)
		}
	}
}

func TestErrorIsGoError(t *testing.T) {
	var err error = Errorf(CodeMethodNotFound, "method %q not found", "x")
	if got, want := err.Error(), `jsonrpc: method "x" not found (-32601)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeMethodNotFound {
		t.Errorf("errors.As = %v", e)
	}
	b, err := json.Marshal(Errorf(-1, "m"))
	if err != nil || string(b) != `{"code":-1,"message":"m"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

func TestErrorCodes(t *testing.T) {
	// The numbers are part of the wire protocol.
	codes := map[string][2]int{
		"parse":           {CodeParseError, -32700},
		"invalid request": {CodeInvalidRequest, -32600},
		"method":          {CodeMethodNotFound, -32601},
		"params":          {CodeInvalidParams, -32602},
		"internal":        {CodeInternalError, -32603},
		"cancelled":       {CodeRequestCancelled, -32800},
		"resource":        {CodeResourceNotFound, -32002},
		"url":             {CodeURLElicitationRequired, -32042},
		"header":          {CodeHeaderMismatch, -32020},
		"capability":      {CodeMissingCapability, -32021},
		"version":         {CodeUnsupportedVersion, -32022},
	}
	for name, c := range codes {
		if c[0] != c[1] {
			t.Errorf("%s: code %d, want %d", name, c[0], c[1])
		}
	}
}
