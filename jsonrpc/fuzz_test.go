package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"abc","method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no","data":[1,{"a":null}]}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"result":null}]`,
		`[]`,
		`[1]`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"1.0","id":2,"method":"b"}]`,
		``,
		`hello`,
		`{"jsonrpc":"2.0","id":1,"method":"pi`,
		`{"jsonrpc":"1.0","id":1,"method":"a"}`,
		`{"id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"a"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"a"}`,
		`{"jsonrpc":"2.0","id":true,"method":"a"}`,
		`{"jsonrpc":"2.0","id":null,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":"[{\"[","method":"a{b[c"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\"[[[\\"}}`,
		nested(MaxDepth),
		nested(MaxDepth + 1),
		strings.Repeat("[", MaxDepth+1),
		`{"jsonrpc":"2.0","id":1e400,"method":"a"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xfe\"}",
		`{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","m\u0065thod":"tools/list"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"param\u017f\":{}}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"foo","Name":"long_task","arguments":{"a":1,"a":2}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"id":3,"method":"b"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"t"}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		plainAgrees(t, body)
		msgs, batch, err := Parse(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, not *Error", err, err)
			}
			if e.Code != CodeParseError && e.Code != CodeInvalidRequest {
				t.Fatalf("error code %d", e.Code)
			}
			if msgs != nil {
				t.Fatalf("messages returned with an error")
			}
			return
		}
		if len(msgs) == 0 {
			t.Fatal("no messages and no error")
		}
		if !batch && len(msgs) != 1 {
			t.Fatalf("%d messages in a non-batch body", len(msgs))
		}
		if !batch {
			unambiguous(t, body)
		} else {
			var elems []json.RawMessage
			if err := json.Unmarshal(body, &elems); err != nil {
				t.Fatal(err)
			}
			for _, e := range elems {
				unambiguous(t, e)
			}
		}
		for _, m := range msgs {
			if m.Kind() == KindInvalid {
				t.Fatalf("Parse returned an invalid message: %+v", m)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("json.Marshal(%+v): %v", m, err)
			}
			if !json.Valid(b) {
				t.Fatalf("json.Marshal produced invalid JSON: %s", b)
			}
			// The re-encoded message parses to a message of the same kind.
			again, _, err := Parse(b)
			if err != nil {
				t.Fatalf("re-encoded %s does not parse: %v", b, err)
			}
			if again[0].Kind() != m.Kind() || again[0].ID.Key() != m.ID.Key() || again[0].Method != m.Method {
				t.Fatalf("round trip changed %s into %+v", b, again[0])
			}
			if !m.ID.IsZero() {
				if out := AppendResult(nil, m.ID, json.RawMessage(`{}`)); !json.Valid(out) {
					t.Fatalf("AppendResult invalid: %s", out)
				}
				if out := AppendError(nil, m.ID, Errorf(CodeInternalError, "x")); !json.Valid(out) {
					t.Fatalf("AppendError invalid: %s", out)
				}
			}
		}
	})
}

// unambiguous fails the test unless the JSON object body names each
// envelope member exactly and at most once; encoding/json's tokenizer reads
// the keys, independently of the scanner Parse uses.
func unambiguous(t *testing.T, body []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("accepted body %q is not an object", body)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		key := tok.(string)
		for _, m := range envelope {
			if strings.EqualFold(key, m) {
				if key != m || seen[m] {
					t.Fatalf("accepted %q: key %q", body, key)
				}
				seen[m] = true
			}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
}

// plainAgrees fails the test unless decodePlain, when it takes body,
// decodes it exactly as encoding/json decodes it into a Message.
func plainAgrees(t *testing.T, body []byte) {
	t.Helper()
	got := new(Message)
	if !decodePlain(body, got) {
		return
	}
	var want Message
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decodePlain took %q, which encoding/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("decodePlain(%q) = %+v; encoding/json: %+v", body, got, &want)
	}
}

func TestDecodePlainAgreesWithEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"x","params":null}`, `{"jsonrpc":"2.0","id":1,"method":"x","other":[1,2]}`,
		`{"jsonrpc":"2.0","id":1,"method":"é","params":[]}`, `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		` {"jsonrpc" : "1.0" , "id" : -1.5e3 , "method" : "" } `,
	} {
		if !decodePlain([]byte(body), new(Message)) {
			t.Errorf("decodePlain refused plain message %s", body)
		}
		plainAgrees(t, []byte(body))
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"a\u0062"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":2,"id":1,"method":"a"}`, `{"jsonrpc":"2.0","id":1,"Method":"a"}`, `{"jsonrpc":"2.0","id":1,"method":"a"`,
		`{"jsonrpc":"2.0","id":1,"method":"` + "\xff" + `"}`,
	} {
		if decodePlain([]byte(body), new(Message)) {
			t.Errorf("decodePlain took %s, which encoding/json must decode", body)
		}
	}
}
