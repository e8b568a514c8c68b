package methods

import (
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/mcp"
)

func TestCompact(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cases := []struct{ name, params, want string }{
		{"nothing to drop", `{"name":"a","arguments":{"x":1},"_meta":{"progressToken":1}}`, `{"name":"a","arguments":{"x":1},"_meta":{"progressToken":1}}`},
		{"an unread member", `{"name":"a","padding":"` + big + `","arguments":{}}`, `{"name":"a","arguments":{}}`},
		{"unread members inside arguments and _meta stay", `{"name":"a","arguments":{"pad":1},"_meta":{"pad":2}}`, `{"name":"a","arguments":{"pad":1},"_meta":{"pad":2}}`},
		{"case variants stay, for CheckParams to refuse", `{"name":"a","Name":"b","pad":0}`, `{"name":"a","Name":"b"}`},
		{"repeats stay", `{"name":"a","name":"b","pad":0}`, `{"name":"a","name":"b"}`},
		{"escaped keys are read as decoders read them", `{"n\u0061me":"a","p\u0061d":0}`, `{"name":"a"}`},
		{"only unread members", `{"pad":1}`, `{}`},
		{"whitespace", ` { "name" : "a" , "pad" : [ 1 ] } `, `{"name":"a"}`},
		{"no object", `null`, `null`},
		{"empty", ``, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Compact([]byte(tc.params))); got != tc.want {
				if len(got) > 200 {
					got = got[:200] + "…"
				}
				t.Errorf("Compact = %s, want %s", got, tc.want)
			}
		})
	}
}

// Compact copies nothing when there is nothing to drop: the path of
// almost every request.
func TestCompactKeepsWhatItNeedNotCopy(t *testing.T) {
	params := []byte(`{"name":"greet","arguments":{"name":"Ada"}}`)
	if n := testing.AllocsPerRun(100, func() { Compact(params) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	if got := Compact(params); &got[0] != &params[0] {
		t.Error("params were copied")
	}
}

// What Compact keeps decodes as the params did, and CheckParams judges it
// as it judged them.
func TestCompactChangesNoReading(t *testing.T) {
	for _, params := range []string{
		`{"name":"a","arguments":{"x":1},"pad":"zzz"}`,
		`{"name":"a","NAME":"b","pad":1}`,
		`{"uri":"u","cursor":"c","junk":{"a":[1,2]},"_meta":{"progressToken":"t"}}`,
	} {
		before, after := CheckParams([]byte(params)), CheckParams(Compact([]byte(params)))
		if (before == nil) != (after == nil) || before != nil && before.Message != after.Message {
			t.Errorf("%s: CheckParams %v before, %v after", params, before, after)
		}
		var was, is mcp.CallToolParams
		if err := decode([]byte(params), &was); err != nil {
			t.Fatal(err)
		}
		if err := decode(Compact([]byte(params)), &is); err != nil || !reflect.DeepEqual(was, is) {
			t.Errorf("%s decodes as %+v, compacted as %+v (%v)", params, was, is, err)
		}
	}
}
