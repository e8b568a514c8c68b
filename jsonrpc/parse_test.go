package jsonrpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// nested returns a request whose params nest objects so that the whole
// body reaches depth levels (the envelope itself is level 1).
func nested(depth int) string {
	inner := strings.Repeat(`{"a":`, depth-2) + "1" + strings.Repeat("}", depth-2)
	if depth == 2 {
		inner = "{}"
	} else {
		inner = `{"a":` + inner + "}"
	}
	return `{"jsonrpc":"2.0","id":1,"method":"m","params":` + inner + "}"
}

// wantCode fails the test unless err is a *Error with code.
func wantCode(t *testing.T, err error, code int) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error with code %d", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %d (%q), want %d", e.Code, e.Message, code)
	}
	return e
}

func TestParseSingle(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		kind   Kind
		id     string
		method string
		params string
		result string
		errc   int
	}{
		{"request number id", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, KindRequest, "1", "tools/list", "", "", 0},
		{"request string id", `{"jsonrpc":"2.0","id":"abc","method":"ping","params":{}}`, KindRequest, `"abc"`, "ping", "{}", "", 0},
		{"request negative id", `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, KindRequest, "-7", "ping", "", "", 0},
		{"request fractional id", `{"jsonrpc":"2.0","id":1.50,"method":"ping"}`, KindRequest, "1.50", "ping", "", "", 0},
		{"request null params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, KindRequest, "1", "ping", "null", "", 0},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, "", "notifications/initialized", "", "", 0},
		{"notification with params", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, KindNotification, "", "notifications/progress", `{"progress":1}`, "", 0},
		{"response", `{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`, KindResponse, `"s1"`, "", "", `{"roots":[]}`, 0},
		{"response null result", `{"jsonrpc":"2.0","id":2,"result":null}`, KindResponse, "2", "", "", "null", 0},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`, KindErrorResponse, "3", "", "", "", -32601},
		{"error response without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}`, KindErrorResponse, "", "", "", "", -32700},
		{"surrounding whitespace", " \n\t{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\r\n ", KindRequest, "4", "ping", "", "", 0},
		{"escaped brackets in strings", `{"jsonrpc":"2.0","id":"[{\"[","method":"a{b[c"}`, KindRequest, `"[{\"["`, "a{b[c", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if batch {
				t.Error("batch = true for a single message")
			}
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want 1", len(msgs))
			}
			m := msgs[0]
			if m.Kind() != tt.kind {
				t.Errorf("Kind = %v, want %v", m.Kind(), tt.kind)
			}
			if string(m.ID) != tt.id {
				t.Errorf("ID = %q, want %q", m.ID, tt.id)
			}
			if m.ID.IsZero() != (tt.id == "") {
				t.Errorf("ID.IsZero = %v for %q", m.ID.IsZero(), m.ID)
			}
			if m.Method != tt.method {
				t.Errorf("Method = %q, want %q", m.Method, tt.method)
			}
			if string(m.Params) != tt.params {
				t.Errorf("Params = %s, want %s", m.Params, tt.params)
			}
			if string(m.Result) != tt.result {
				t.Errorf("Result = %s, want %s", m.Result, tt.result)
			}
			if tt.errc != 0 && (m.Error == nil || m.Error.Code != tt.errc) {
				t.Errorf("Error = %+v, want code %d", m.Error, tt.errc)
			}
			if tt.errc == 0 && m.Error != nil {
				t.Errorf("Error = %+v, want nil", m.Error)
			}
		})
	}
}

func TestParseBatch(t *testing.T) {
	body := `[
		{"jsonrpc":"2.0","id":1,"method":"tools/list"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"r","result":{}},
		{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}
	]`
	msgs, batch, err := Parse([]byte(body))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !batch {
		t.Error("batch = false")
	}
	want := []Kind{KindRequest, KindNotification, KindResponse, KindErrorResponse}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(want))
	}
	for i, k := range want {
		if got := msgs[i].Kind(); got != k {
			t.Errorf("msgs[%d].Kind = %v, want %v", i, got, k)
		}
	}
	if string(msgs[2].ID) != `"r"` {
		t.Errorf("msgs[2].ID = %q", msgs[2].ID)
	}
}

func TestParseBatchErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		code int
	}{
		{"empty batch", `[]`, CodeInvalidRequest},
		{"empty batch with spaces", `[ ]`, CodeInvalidRequest},
		{"invalid element fails the batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"1.0","id":2,"method":"b"}]`, CodeInvalidRequest},
		{"non-object element", `[{"jsonrpc":"2.0","id":1,"method":"a"},1]`, CodeInvalidRequest},
		{"null element", `[null]`, CodeInvalidRequest},
		{"nested batch", `[[{"jsonrpc":"2.0","id":1,"method":"a"}]]`, CodeInvalidRequest},
		{"truncated batch", `[{"jsonrpc":"2.0","id":1,"method":"a"}`, CodeParseError},
		{"trailing comma", `[{"jsonrpc":"2.0","id":1,"method":"a"},]`, CodeParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := Parse([]byte(tt.body))
			wantCode(t, err, tt.code)
			if msgs != nil {
				t.Errorf("msgs = %v, want nil", msgs)
			}
			if !batch {
				t.Error("batch = false for a body that is an array")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		code int
	}{
		{"empty body", ``, CodeParseError},
		{"whitespace body", " \r\n\t ", CodeParseError},
		{"not JSON", `hello`, CodeParseError},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"pi`, CodeParseError},
		{"truncated after key", `{"jsonrpc":`, CodeParseError},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"a"} x`, CodeParseError},
		{"two objects", `{"jsonrpc":"2.0","id":1,"method":"a"}{"jsonrpc":"2.0","id":2,"method":"b"}`, CodeParseError},
		{"single quotes", `{'jsonrpc':'2.0'}`, CodeParseError},
		{"too deep", nested(MaxDepth + 1), CodeParseError},
		{"too deep arrays", "[" + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "]", CodeParseError},
		{"too deep unterminated", strings.Repeat("[", MaxDepth+1), CodeParseError},
		{"close before open", `][`, CodeParseError},
		{"object closed first", `}{"jsonrpc":"2.0","id":1,"method":"a"}`, CodeParseError},

		{"string", `"hello"`, CodeInvalidRequest},
		{"number", `42`, CodeInvalidRequest},
		{"null", `null`, CodeInvalidRequest},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"a"}`, CodeInvalidRequest},
		{"jsonrpc missing", `{"id":1,"method":"a"}`, CodeInvalidRequest},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"a"}`, CodeInvalidRequest},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":7}`, CodeInvalidRequest},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"a"}`, CodeInvalidRequest},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"a"}`, CodeInvalidRequest},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"a"}`, CodeInvalidRequest},
		{"id false", `{"jsonrpc":"2.0","id":false,"method":"a"}`, CodeInvalidRequest},
		// A null id is neither absent nor valid: MCP admits no null id.
		{"id null request", `{"jsonrpc":"2.0","id":null,"method":"a"}`, CodeInvalidRequest},
		{"id null response", `{"jsonrpc":"2.0","id":null,"result":{}}`, CodeInvalidRequest},
		{"id null error response", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, CodeInvalidRequest},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"a","params":[1,2]}`, CodeInvalidRequest},
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"a","params":"x"}`, CodeInvalidRequest},
		{"params number", `{"jsonrpc":"2.0","method":"a","params":3}`, CodeInvalidRequest},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"a","result":{}}`, CodeInvalidRequest},
		{"request with error", `{"jsonrpc":"2.0","id":1,"method":"a","error":{"code":1,"message":"x"}}`, CodeInvalidRequest},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, CodeInvalidRequest},
		{"neither", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest},
		{"empty object", `{}`, CodeInvalidRequest},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, CodeInvalidRequest},
		{"error null", `{"jsonrpc":"2.0","id":1,"error":null}`, CodeInvalidRequest},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, CodeInvalidRequest},
		{"error code not integer", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, CodeInvalidRequest},
		{"error not object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tt.body))
			e := wantCode(t, err, tt.code)
			if msgs != nil {
				t.Errorf("msgs = %v, want nil", msgs)
			}
			if e.Message == "" {
				t.Error("empty error message")
			}
		})
	}
}

func TestParseErrorMessagesHaveNoGoTypes(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":2,"id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a"`,
	}
	for _, body := range bodies {
		_, _, err := Parse([]byte(body))
		if err == nil {
			t.Fatalf("Parse(%s) succeeded", body)
		}
		for _, word := range []string{"jsonrpc.Message", "Go value", "struct", "int64"} {
			if strings.Contains(err.Error(), word) {
				t.Errorf("Parse(%s) error %q mentions %q", body, err, word)
			}
		}
	}
}

func TestParseWrongTypeNamesField(t *testing.T) {
	_, _, err := Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":true}`))
	e := wantCode(t, err, CodeInvalidRequest)
	if !strings.Contains(e.Message, `"method"`) {
		t.Errorf("message %q does not name the field", e.Message)
	}
}

func TestParseDepth(t *testing.T) {
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"MaxDepth object", nested(MaxDepth), true},
		{"MaxDepth+1 object", nested(MaxDepth + 1), false},
		{"MaxDepth batch", "[" + nested(MaxDepth-1) + "]", true},
		{"MaxDepth+1 batch", "[" + nested(MaxDepth) + "]", false},
		{"brackets in string", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"` + strings.Repeat("[{", 2*MaxDepth) + `"}}`, true},
		{"brackets after escaped quote", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\"` + strings.Repeat("[", 2*MaxDepth) + `\\"}}`, true},
		{"escaped backslash ends string", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\\","t":"` + strings.Repeat("{", 2*MaxDepth) + `"}}`, true},
		{"sequential siblings", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[` + strings.Repeat(`{},`, 3*MaxDepth) + `{}]}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid([]byte(tt.body)) {
				t.Fatalf("test body is not valid JSON: %s", tt.body)
			}
			msgs, _, err := Parse([]byte(tt.body))
			if tt.ok {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if len(msgs) != 1 {
					t.Fatalf("got %d messages", len(msgs))
				}
				return
			}
			e := wantCode(t, err, CodeParseError)
			if !strings.Contains(e.Message, "nesting") {
				t.Errorf("message %q does not mention nesting", e.Message)
			}
		})
	}
}

func TestNestedHelperDepth(t *testing.T) {
	// Guards the helper the depth tests rely on.
	for _, d := range []int{2, 3, 10, MaxDepth} {
		depth, most := 0, 0
		for _, c := range nested(d) {
			switch c {
			case '{', '[':
				depth++
				most = max(most, depth)
			case '}', ']':
				depth--
			}
		}
		if most != d || depth != 0 {
			t.Errorf("nested(%d): max depth %d, final %d", d, most, depth)
		}
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{
		{KindInvalid, "invalid"},
		{KindRequest, "request"},
		{KindNotification, "notification"},
		{KindResponse, "response"},
		{KindErrorResponse, "error response"},
		{Kind(200), "invalid"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", tt.k, got, tt.want)
		}
	}
}

func TestMessageKind(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want Kind
	}{
		{"empty", Message{}, KindInvalid},
		{"method with id", Message{ID: IntID(1), Method: "a"}, KindRequest},
		{"method without id", Message{Method: "a"}, KindNotification},
		{"result", Message{ID: IntID(1), Result: json.RawMessage(`{}`)}, KindResponse},
		{"error wins over result", Message{ID: IntID(1), Result: json.RawMessage(`{}`), Error: &Error{}}, KindErrorResponse},
		{"method wins", Message{ID: IntID(1), Method: "a", Error: &Error{}}, KindRequest},
	}
	for _, tt := range tests {
		if got := tt.m.Kind(); got != tt.want {
			t.Errorf("%s: Kind = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIDs(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		raw  string
	}{
		{"IntID", IntID(42), "42"},
		{"IntID negative", IntID(-3), "-3"},
		{"IntID zero", IntID(0), "0"},
		{"StringID", StringID("a\"b"), `"a\"b"`},
		{"StringID empty", StringID(""), `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.id) != tt.raw || tt.id.Key() != tt.raw || tt.id.String() != tt.raw {
				t.Errorf("raw %q, Key %q, String %q; want %q", tt.id, tt.id.Key(), tt.id.String(), tt.raw)
			}
			if tt.id.IsZero() {
				t.Error("IsZero = true")
			}
			b, err := json.Marshal(tt.id)
			if err != nil || string(b) != tt.raw {
				t.Errorf("Marshal = %s, %v; want %s", b, err, tt.raw)
			}
			var back ID
			if err := json.Unmarshal(b, &back); err != nil || back.Key() != tt.id.Key() {
				t.Errorf("Unmarshal = %q, %v", back, err)
			}
		})
	}
	if IntID(1).Key() == StringID("1").Key() {
		t.Error(`IntID(1) and StringID("1") have the same key`)
	}
	var zero ID
	if !zero.IsZero() {
		t.Error("zero ID: IsZero = false")
	}
	if b, err := json.Marshal(zero); err != nil || string(b) != "null" {
		t.Errorf("Marshal(zero ID) = %s, %v; want null", b, err)
	}
}

func TestIDUnmarshalReusesNothingStale(t *testing.T) {
	id := ID("123456")
	if err := json.Unmarshal([]byte(`7`), &id); err != nil {
		t.Fatal(err)
	}
	if string(id) != "7" {
		t.Errorf("id = %q, want 7", id)
	}
}
