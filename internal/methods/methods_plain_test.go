package methods

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/specter-mcp/specter/mcp"
)

var callToolSamples = []string{
	`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":1}}`, `{"name":"a\u00e9\n"}`,
	`{"name":null}`, `{"name":7}`, `{"Name":"x"}`, `{"name":"a","name":"b"}`, `{"NAME":"x","name":"y"}`,
	`{"arguments":[1]}`, `{}`, `null`, `[]`, `{"name":"x","other":{"name":1}}`, `{"_META":{}}`,
}

// TestPlainCallToolAgreesWithDecode holds the reflection-free reading of
// tools/call params to what encoding/json makes of them.
func TestPlainCallToolAgreesWithDecode(t *testing.T) {
	for _, s := range callToolSamples {
		agree(t, []byte(s))
	}
}

func agree(t *testing.T, params []byte) {
	t.Helper()
	if name, args, ok := ReadCallTool(params, ""); ok {
		// Whoever calls CallTool itself calls it as callTool does.
		s := &fakeServer{}
		callTool(s, params)
		if s.calledTool != name || !bytes.Equal(s.toolArgs, args) {
			t.Fatalf("ReadCallTool(%s) = %q %s; callTool called %q %s", params, name, args, s.calledTool, s.toolArgs)
		}
	}
	got, ok := plainCallTool(params, "")
	if known, _ := plainCallTool(params, got.Name); !reflect.DeepEqual(known, got) {
		t.Fatalf("plainCallTool(%s) with its name known = %+v; without: %+v", params, known, got)
	}
	if !ok {
		return
	}
	var want mcp.CallToolParams
	if err := decode(params, &want); err != nil {
		t.Fatalf("plainCallTool took %s, which decode refuses: %v", params, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plainCallTool(%s) = %+v; decode: %+v", params, got, want)
	}
}

func FuzzPlainCallTool(f *testing.F) {
	for _, s := range callToolSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if json.Valid(params) {
			agree(t, params)
		}
	})
}
