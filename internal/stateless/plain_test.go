package stateless

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

var plainSeeds = []string{
	`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"a\u0062","uri":"x://y","requestState":"s","taskId":"t","inputResponses":{"q":{"action":"accept"},"q":null,"r\u00e9":1}}`,
	`{"NAME":"echo"}`,
	`{"name":"a","name":"b"}`,
	`{"name":1}`,
	`{"name":null,"arguments":null,"inputResponses":null}`,
	`{"inputResponses":[1]}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{"listChanged":true},"extensions":{"x":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"debug","progressToken":7}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{ }, "io.modelcontextprotocol/logLevel":"loud"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolversion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":1}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"_meta":[]}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","title":"C","version":"1","description":"d","websiteUrl":"https://c.example","icons":[{"src":"https://c.example/i.png"}]}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","NAME":"d","version":null,"x":1}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":2}}}`,
}

// checkPlainAgrees fails when the plain path accepts params or a _meta
// and decodes them otherwise than encoding/json.
func checkPlainAgrees(t *testing.T, params []byte) {
	if !jsonscan.Valid(params) {
		return // jsonrpc.Parse lets only valid JSON through
	}
	var plain Params
	if readPlain(params, &plain) {
		var ref Params
		if err := json.Unmarshal(params, &ref); err != nil {
			t.Fatalf("%s: the plain path took params encoding/json refuses: %v", params, err)
		}
		if !reflect.DeepEqual(plain, ref) {
			t.Fatalf("%s: plain %+v, encoding/json %+v", params, plain, ref)
		}
	}
	var p Params
	if json.Unmarshal(params, &p) != nil || len(p.Meta) == 0 {
		return
	}
	if meta, ok := parseMetaPlain(p.Meta); ok {
		ref, jerr := parseMetaJSON(p.Meta)
		if jerr != nil {
			if meta.LogLevel != "" && meta.LogLevel.Severity() < 0 {
				return // ParseMeta refuses it too, from the plain result
			}
			t.Fatalf("%s: the plain path took a _meta the full path refuses: %v", p.Meta, jerr)
		}
		if !reflect.DeepEqual(meta, ref) {
			t.Fatalf("%s: plain %+v, encoding/json %+v", p.Meta, meta, ref)
		}
	}
}

func TestPlainAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range plainSeeds {
		checkPlainAgrees(t, []byte(s))
	}
	// The common shapes go the plain way.
	var p Params
	if !readPlain([]byte(plainSeeds[0]), &p) {
		t.Error("plain params went to encoding/json")
	}
	if _, ok := parseMetaPlain(p.Meta); !ok {
		t.Error("a plain _meta went to encoding/json")
	}
}

func FuzzPlainParams(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkPlainAgrees(t, params) })
}
