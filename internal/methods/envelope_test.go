package methods

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name   string
		params string
		token  bool
		want   Envelope
	}{
		{"none", ``, true, Envelope{}},
		{"not an object", `[1]`, true, Envelope{}},
		{"not decodable", `{"name":7}`, true, Envelope{}},
		{"a tool call", `{"name":"echo","arguments":{"a":1}}`, true, Envelope{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)}},
		{"a read names its URI", `{"name":"n","uri":"a://b"}`, true, Envelope{Name: "a://b"}},
		{"a page", `{"cursor":"c2"}`, true, Envelope{Cursor: "c2"}},
		{"a task-augmented call", `{"name":"job","task":{"ttl":60000}}`, true, Envelope{Name: "job", Task: json.RawMessage(`{"ttl":60000}`)}},
		{"_meta not an object", `{"_meta":[]}`, true, Envelope{}},
		{"a progress token", `{"_meta":{"progressToken":7}}`, true,
			Envelope{Meta: json.RawMessage(`{"progressToken":7}`), ProgressToken: json.RawMessage(`7`)}},
		{"a null token", `{"_meta":{"progressToken":null}}`, true, Envelope{Meta: json.RawMessage(`{"progressToken":null}`)}},
		{"a token not read", `{"_meta":{"progressToken":7}}`, false, Envelope{Meta: json.RawMessage(`{"progressToken":7}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadEnvelope(json.RawMessage(tt.params), tt.token); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ReadEnvelope(%s) = %+v; want %+v", tt.params, got, tt.want)
			}
		})
	}
}

var readSamples = []string{
	`{"name":"echo","arguments":{"a":1},"_meta":{"progressToken":"t","other":1}}`,
	`{"Name":"echo"}`, `{"name":"a","name":"b"}`, `{"name":"esc\u00e9\n"}`, `{"name":null,"cursor":null}`,
	`{"uri":"a://b","cursor":"c"}`, `{"cursor":1}`, `{"arguments":null}`, `{"_meta":{"ProgressToken":1}}`,
	`{"_meta":{"progressToken":1,"progressToken":2}}`, `{"_meta":null}`, `{}`, ` {"name":"x"}`, `{"other":{"name":1}}`,
}

func TestReadAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range readSamples {
		for _, token := range []bool{true, false} {
			got, want := ReadEnvelope(json.RawMessage(s), token), decodeEnvelope(json.RawMessage(s), token)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadEnvelope(%s, %v) = %+v; encoding/json: %+v", s, token, got, want)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range readSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // Read is given params of a parsed message
		}
		got, want := ReadEnvelope(params, true), decodeEnvelope(params, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ReadEnvelope(%s) = %+v; encoding/json: %+v", params, got, want)
		}
	})
}
