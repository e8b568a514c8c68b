package methods

import (
	"strings"
	"testing"
)

func TestCheckParams(t *testing.T) {
	cases := []struct{ params, want string }{
		{`{"name":"a","arguments":{"x":1}}`, ""},
		{`{"name":"a","Name":"b"}`, `"Name" is not "name"`},
		{`{"name":"a","name":"b"}`, `"name" appears twice`},
		{`{"name":"a","_meta":{"progressToken":1,"progressToken":2}}`, `"progressToken" appears twice`},
		{`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"x","IO.modelcontextprotocol/protocolVersion":"y"}}`, "case-sensitive"},
		{`{"name":"a","_meta":{"other":1,"Other":2}}`, ""},
		{`{"name":"a","arguments":{"x":1,"X":2}}`, ""}, // the schema's own check decides about arguments
		{`[]`, ""},
		{``, ""},
	}
	for _, tc := range cases {
		e := CheckParams([]byte(tc.params))
		switch {
		case tc.want == "" && e != nil:
			t.Errorf("%s: %v", tc.params, e)
		case tc.want != "" && (e == nil || !strings.Contains(e.Message, tc.want)):
			t.Errorf("%s: %v, want an error naming %s", tc.params, e, tc.want)
		}
	}
}
