package jsonrpc

import (
	"strings"
	"testing"
)

// TestParseRejectsAmbiguousEnvelope: a message that a gateway and this
// parser could read as different requests is an Invalid Request.
func TestParseRejectsAmbiguousEnvelope(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string // in the message
	}{
		{"case-variant method", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`, `"Method"`},
		{"case-variant before the member", `{"jsonrpc":"2.0","id":1,"METHOD":"tools/list","method":"ping"}`, `"METHOD"`},
		{"lone case-variant method", `{"jsonrpc":"2.0","id":1,"Method":"tools/list"}`, `"Method"`},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, `"method" appears twice`},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `"id" appears twice`},
		{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, `"jsonrpc" appears twice`},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}`, `"params" appears twice`},
		{"case-variant params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"Params":{"name":"b"}}`, `"Params"`},
		{"case-variant id", `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, `"ID"`},
		{"case-variant jsonrpc", `{"JSONRPC":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, `"JSONRPC"`},
		{"duplicate result", `{"jsonrpc":"2.0","id":1,"result":{},"result":{"x":1}}`, `"result" appears twice`},
		{"case-variant error", `{"jsonrpc":"2.0","id":1,"result":{},"Error":{"code":1,"message":"x"}}`, `"Error"`},
		{"escaped duplicate", `{"jsonrpc":"2.0","id":1,"method":"ping","m\u0065thod":"tools/list"}`, `"method" appears twice`},
		{"long s folds to s", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"param\u017f\":{}}", `"params"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tt.body))
			e := wantCode(t, err, CodeInvalidRequest)
			if msgs != nil {
				t.Errorf("msgs = %v", msgs)
			}
			if !strings.Contains(e.Message, tt.want) {
				t.Errorf("message %q does not contain %s", e.Message, tt.want)
			}
		})
	}
}

func TestParseAmbiguousBatchElement(t *testing.T) {
	body := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping","Method":"tools/list"}]`
	_, batch, err := Parse([]byte(body))
	wantCode(t, err, CodeInvalidRequest)
	if !batch {
		t.Error("batch = false")
	}
}

// TestParseKeepsOtherMembers: members JSON-RPC does not define are ignored
// as before, whatever their case, and the check does not look inside
// values.
func TestParseKeepsOtherMembers(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","extra":1,"Extra":2,"extra":3}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"method":"a","Method":"b","id":1,"id":2}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"jsonrpc":"x","Result":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","methods":1,"ids":[]}`,
	} {
		if _, _, err := Parse([]byte(body)); err != nil {
			t.Errorf("Parse(%s): %v", body, err)
		}
	}
}

// TestParseSyntaxBeforeAmbiguity: a body that is not JSON is a parse
// error even when its keys repeat.
func TestParseSyntaxBeforeAmbiguity(t *testing.T) {
	_, _, err := Parse([]byte(`{"jsonrpc":"2.0","method":"a","method":"b",}`))
	wantCode(t, err, CodeParseError)
}

func TestCheckMembers(t *testing.T) {
	names := []string{"name", "arguments", "_meta"}
	tests := []struct {
		name string
		obj  string
		want string // "" when the object passes
	}{
		{"plain", `{"name":"foo","arguments":{"a":1},"_meta":{}}`, ""},
		{"empty", `{}`, ""},
		{"not an object", `[1,2]`, ""},
		{"null", `null`, ""},
		{"absent", ``, ""},
		{"unknown members any case", `{"name":"foo","task":{},"Task":{}}`, ""},
		{"nested values not checked", `{"name":"foo","arguments":{"a":1,"a":2,"Name":"x"}}`, ""},
		{"case-variant name", `{"name":"foo","Name":"long_task"}`, `"Name" is not "name"`},
		{"lone case-variant", `{"NAME":"long_task"}`, `"NAME" is not "name"`},
		{"case-variant _meta", `{"name":"foo","_META":{}}`, `"_META" is not "_meta"`},
		{"duplicate name", `{"name":"foo","name":"long_task"}`, `"name" appears twice`},
		{"duplicate unknown member", `{"name":"foo","x":1,"x":2}`, `"x" appears twice`},
		{"escaped duplicate", `{"name":"foo","n\u0061me":"long_task"}`, `"name" appears twice`},
		{"long key shortened", `{"` + strings.Repeat("k", 200) + `":1,"` + strings.Repeat("k", 200) + `":2}`, `appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := CheckMembers([]byte(tt.obj), names...)
			if tt.want == "" {
				if e != nil {
					t.Fatalf("CheckMembers: %v", e)
				}
				return
			}
			if e == nil {
				t.Fatal("CheckMembers passed")
			}
			if e.Code != CodeInvalidParams || !strings.Contains(e.Message, tt.want) {
				t.Errorf("got %d %q, want %d with %s", e.Code, e.Message, CodeInvalidParams, tt.want)
			}
			if len(e.Message) > 200 {
				t.Errorf("message is %d bytes long", len(e.Message))
			}
		})
	}
}

func TestExactMemberMatchesEnvelope(t *testing.T) {
	for i, m := range envelope {
		if got := exactMember([]byte(m)); got != i {
			t.Errorf("exactMember(%q) = %d, want %d", m, got, i)
		}
	}
	if got := exactMember([]byte("Method")); got != -1 {
		t.Errorf("exactMember(Method) = %d", got)
	}
}
