package stateless

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func code(err *jsonrpc.Error) int {
	if err == nil {
		return 0
	}
	return err.Code
}

func TestIs(t *testing.T) {
	msg := func(params string) []*jsonrpc.Message {
		return []*jsonrpc.Message{{Method: "tools/list", Params: json.RawMessage(params)}}
	}
	for _, tc := range []struct {
		name             string
		session, version string
		msgs             []*jsonrpc.Message
		want             bool
	}{
		{"stateless meta alone", "", "", msg(`{"_meta":` + meta + `}`), true},
		{"stateless version header", "", "2026-07-28", msg(`{}`), true},
		{"unknown version header", "", "2099-01-01", msg(`{}`), true},
		{"session-era header", "", "2025-11-25", msg(`{}`), false},
		{"nothing", "", "", msg(`{}`), false},
		{"a session", "s1", "2026-07-28", msg(`{"_meta":` + meta + `}`), false},
		{"other meta keys", "", "", msg(`{"_meta":{"io.modelcontextprotocol/other":1}}`), false},
	} {
		if got := Is(tc.session, tc.version, tc.msgs); got != tc.want {
			t.Errorf("%s: Is = %v", tc.name, got)
		}
	}
}

func TestParseMeta(t *testing.T) {
	if m, err := ParseMeta(json.RawMessage(meta)); err != nil || m.ProtocolVersion != "2026-07-28" || m.ClientCapabilities == nil {
		t.Fatalf("ParseMeta = %+v, %v", m, err)
	}
	for _, bad := range []string{
		``, `[]`, `{}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":1}}`,
	} {
		if _, err := ParseMeta(json.RawMessage(bad)); code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("ParseMeta(%s) = %v, want -32602", bad, err)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       http.Header
		version string
		want    int
	}{
		{"match", headers("MCP-Protocol-Version", "2026-07-28"), "2026-07-28", 0},
		{"spaces", headers("MCP-Protocol-Version", " 2026-07-28\t"), "2026-07-28", 0},
		{"missing", headers(), "2026-07-28", jsonrpc.CodeHeaderMismatch},
		{"differs", headers("MCP-Protocol-Version", "2025-11-25"), "2026-07-28", jsonrpc.CodeHeaderMismatch},
		{"twice", headers("MCP-Protocol-Version", "2026-07-28", "MCP-Protocol-Version", "2026-07-28"), "2026-07-28", jsonrpc.CodeHeaderMismatch},
		{"unsupported", headers("MCP-Protocol-Version", "2099-01-01"), "2099-01-01", jsonrpc.CodeUnsupportedVersion},
	} {
		if got := code(CheckVersion(tc.h, tc.version)); got != tc.want {
			t.Errorf("%s: code %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestCheckRoute(t *testing.T) {
	for _, tc := range []struct {
		name         string
		h            http.Header
		method, item string
		named        bool
		want         int
	}{
		{"list", headers("Mcp-Method", "tools/list"), "tools/list", "", false, 0},
		{"call", headers("Mcp-Method", "tools/call", "Mcp-Name", "book"), "tools/call", "book", true, 0},
		{"base64 name", headers("Mcp-Method", "resources/read", "Mcp-Name", "=?base64?ZmlsZTovLy/kuJY=?="), "resources/read", "file:///世", true, 0},
		{"no method", headers(), "tools/list", "", false, jsonrpc.CodeHeaderMismatch},
		{"other method", headers("Mcp-Method", "tools/call"), "tools/list", "", false, jsonrpc.CodeHeaderMismatch},
		{"method case", headers("Mcp-Method", "Tools/List"), "tools/list", "", false, jsonrpc.CodeHeaderMismatch},
		{"method twice", headers("Mcp-Method", "tools/list", "Mcp-Method", "tools/call"), "tools/list", "", false, jsonrpc.CodeHeaderMismatch},
		{"method twice, same", headers("Mcp-Method", "tools/list", "Mcp-Method", "tools/list"), "tools/list", "", false, jsonrpc.CodeHeaderMismatch},
		{"no name", headers("Mcp-Method", "tools/call"), "tools/call", "book", true, jsonrpc.CodeHeaderMismatch},
		{"other name", headers("Mcp-Method", "tools/call", "Mcp-Name", "cancel"), "tools/call", "book", true, jsonrpc.CodeHeaderMismatch},
		{"name twice", headers("Mcp-Method", "tools/call", "Mcp-Name", "book", "Mcp-Name", "delete"), "tools/call", "book", true, jsonrpc.CodeHeaderMismatch},
		{"name twice, same", headers("Mcp-Method", "tools/call", "Mcp-Name", "book", "Mcp-Name", "book"), "tools/call", "book", true, jsonrpc.CodeHeaderMismatch},
		{"bad base64 name", headers("Mcp-Method", "tools/call", "Mcp-Name", "=?base64?!!?="), "tools/call", "book", true, jsonrpc.CodeHeaderMismatch},
	} {
		if got := code(CheckRoute(tc.h, tc.method, tc.item, tc.named)); got != tc.want {
			t.Errorf("%s: code %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestDecodeHeader(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"us-west1", "us-west1", true},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true},
		{"=?base64?IHBhZGRlZCA=?=", " padded ", true},
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", true},
		{"=?base64??=", "", true},
		{"=?base64?=", "=?base64?=", true}, // too short to be the form: literal
		{"=?BASE64?SGk=?=", "=?BASE64?SGk=?=", true},
		{"=?base64?SGk?=", "", false},    // unpadded
		{"=?base64?SG k=?=", "", false},  // not Base64
		{"=?base64?SGk=\n?=", "", false}, // control character
		{"caf\xc3\xa9", "", false},       // not ASCII
		{"a\x00b", "", false},
	} {
		got, ok := DecodeHeader(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("DecodeHeader(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCheckParams(t *testing.T) {
	params := []ParamHeader{{"region", "Region"}, {"n", "N"}, {"on", "On"}}
	for _, tc := range []struct {
		name string
		h    http.Header
		args string
		want int
	}{
		{"all match", headers("Mcp-Param-Region", "us-west", "Mcp-Param-N", "42", "Mcp-Param-On", "true"), `{"region":"us-west","n":42,"on":true}`, 0},
		{"number forms", headers("Mcp-Param-N", "42"), `{"n":42.0}`, 0},
		{"base64 value", headers("Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?="), `{"region":" padded "}`, 0},
		{"absent and null need no header", headers(), `{"region":null}`, 0},
		{"arguments that do not decode", headers(), `[`, 0},
		{"missing header", headers(), `{"region":"us-west"}`, jsonrpc.CodeHeaderMismatch},
		{"other value", headers("Mcp-Param-Region", "us-east"), `{"region":"us-west"}`, jsonrpc.CodeHeaderMismatch},
		{"header twice", headers("Mcp-Param-Region", "us-west", "Mcp-Param-Region", "us-west"), `{"region":"us-west"}`, jsonrpc.CodeHeaderMismatch},
		{"beyond 2^53", headers("Mcp-Param-N", "9007199254740992"), `{"n":9007199254740993}`, jsonrpc.CodeHeaderMismatch},
		{"boolean case", headers("Mcp-Param-On", "True"), `{"on":true}`, jsonrpc.CodeHeaderMismatch},
		{"string is not a number", headers("Mcp-Param-N", "42"), `{"n":"42.0"}`, jsonrpc.CodeHeaderMismatch},
	} {
		if got := code(CheckParams(tc.h, params, json.RawMessage(tc.args))); got != tc.want {
			t.Errorf("%s: code %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSameNumber(t *testing.T) {
	for _, tc := range []struct {
		body, header string
		want         bool
	}{
		{"42", "42", true},
		{"42", "42.0", true},
		{"42.0", "42", true},
		{"4.2e1", "42", true},
		{"420E-1", "42", true},
		{"0.5", "5e-1", true},
		{"-7", "-7", true},
		{"0", "-0", true},
		{"0.000", "0", true},
		{"1e400", "1e400", true},
		{"9007199254740993", "9007199254740993", true},
		{"9007199254740993", "9007199254740992", false},
		{"123456789012345678901234567890", "123456789012345678901234567891", false},
		{"0.1", "0.10000000000000001", false},
		{"42", "-42", false},
		{"42", "+42", false},
		{"42", "042", false},
		{"42", "42.", false},
		{"0.5", ".5", false},
		{"42", " 42", false},
		{"42", "0x2a", false},
		{"42", "4_2", false},
		{"1", "1e", false},
		{"1", "1e99999999999999999999", false},
		{"1e99999999999999999999", "1e99999999999999999999", false},
		{"1", "Inf", false},
		{"1", "", false},
	} {
		if got := sameValue(json.RawMessage(tc.body), tc.header); got != tc.want {
			t.Errorf("sameValue(%s, %q) = %v", tc.body, tc.header, got)
		}
	}
}

func TestStatus(t *testing.T) {
	for c, want := range map[int]int{
		jsonrpc.CodeMethodNotFound: 404, jsonrpc.CodeForbidden: 403, jsonrpc.CodeInvalidParams: 400,
		jsonrpc.CodeHeaderMismatch: 400, jsonrpc.CodeUnsupportedVersion: 400, jsonrpc.CodeInternalError: 200,
	} {
		if got := Status(c); got != want {
			t.Errorf("Status(%d) = %d, want %d", c, got, want)
		}
	}
}

func FuzzDecodeHeader(f *testing.F) {
	for _, s := range []string{"plain", "=?base64?SGk=?=", "=?base64??=", "=?base64?", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := DecodeHeader(v)
		if ok && got != v && (len(v) < len("=?base64??=") || v[:9] != "=?base64?") {
			t.Fatalf("DecodeHeader(%q) = %q: only the Base64 form is transformed", v, got)
		}
	})
}

func FuzzSameNumber(f *testing.F) {
	for _, s := range []string{"42", "-0.5e-3", "9007199254740993", "1e400"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		da, oka := parseDecimal(a)
		db, okb := parseDecimal(b)
		valid := json.Valid([]byte(a)) && len(a) > 0 && (a[0] == '-' || (a[0] >= '0' && a[0] <= '9'))
		if oka && !valid {
			t.Fatalf("parseDecimal accepted %q, which is no JSON number", a)
		}
		if oka && okb && (da == db) != (sameValue(json.RawMessage(a), b)) {
			t.Fatalf("sameValue(%q, %q) disagrees with parseDecimal", a, b)
		}
	})
}

func TestExtensions(t *testing.T) {
	if got := Extensions(false, false); got != nil {
		t.Errorf("no extension: %v", got)
	}
	got, _ := json.Marshal(Extensions(true, true))
	if want := `{"io.modelcontextprotocol/skills":{"directoryRead":true},"io.modelcontextprotocol/tasks":{}}`; string(got) != want {
		t.Errorf("both: %s; want %s", got, want)
	}
	if got := Extensions(false, true); len(got) != 1 || got[mcp.ExtensionTasks] != nil {
		t.Errorf("skills only: %v", got)
	}
}
