package params

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// contactSchema exercises $defs, $anchor, $ref, allOf/anyOf, if/then/else
// and additionalProperties.
const contactSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

func mustRaw(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Raw([]byte(schema))
	if err != nil {
		t.Fatalf("Raw: %v", err)
	}
	return s
}

func TestRawServedVerbatim(t *testing.T) {
	for _, doc := range []string{
		contactSchema,
		// Whitespace, key order and number spelling survive.
		"{\n  \"type\" : \"object\",\n  \"properties\": {\"z\": {\"type\": \"number\", \"maximum\": 1.50}, \"a\": {}}\n}\n",
	} {
		s := mustRaw(t, doc)
		if got := string(s.JSON()); got != doc {
			t.Errorf("JSON()\n got %s\nwant %s", got, doc)
		}
	}

	// Raw copies its input.
	buf := []byte(contactSchema)
	s, err := Raw(buf)
	if err != nil {
		t.Fatal(err)
	}
	buf[0] = 'X'
	if string(s.JSON()) != contactSchema {
		t.Error("schema changed with the caller's buffer")
	}
}

func TestRawOtherDraft(t *testing.T) {
	s := mustRaw(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","exclusiveMaximum":3}}}`)
	if _, err := s.Validate(json.RawMessage(`{"n":2}`)); err != nil {
		t.Error(err)
	}
	if _, err := s.Validate(json.RawMessage(`{"n":3}`)); err == nil {
		t.Error("draft-07 exclusiveMaximum not enforced")
	}
}

func TestRawValidate(t *testing.T) {
	s := mustRaw(t, contactSchema)
	tests := []struct {
		name string
		args string
		want []brief // nil: valid
	}{
		{"email contact", `{"name":"Ada","email":"ada@example.com"}`, nil},
		{"phone contact", `{"contactMethod":"phone","phone":"123","address":{"city":"Paris","street":"Rue"}}`, nil},
		{"email method", `{"contactMethod":"email","email":"a@b.c","phone":"1"}`, nil},
		{"nothing", `{}`, []brief{{"", "anyOf", ""}, {"email", "required", ""}}},
		{"phone method without phone", `{"contactMethod":"phone","email":"a@b.c"}`, []brief{{"phone", "required", ""}}},
		{"many problems", `{"name":1,"contactMethod":"fax","address":{"city":5},"extra":true,"phone":"1"}`, []brief{
			{"name", "type", "string"},
			{"address.city", "type", "string"},
			{"contactMethod", "enum", `"phone" "email"`},
			{"extra", "additionalProperties", ""},
			{"email", "required", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.Validate(json.RawMessage(tt.args))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				var want Values
				_ = json.Unmarshal([]byte(tt.args), &want)
				if got, _ := json.Marshal(v); string(got) != mustMarshal(t, want) {
					t.Errorf("Values = %s", got)
				}
				return
			}
			got := briefs(fieldErrors(t, err))
			sortBriefs(got)
			sortBriefs(tt.want)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestRawMessages(t *testing.T) {
	s := mustRaw(t, contactSchema)
	_, err := s.Validate(json.RawMessage(`{}`))
	want := `invalid arguments: arguments must satisfy at least one of: ("phone" is required) or ("email" is required); "email" is required`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}

	s = mustRaw(t, `{"type":"object","properties":{
		"s":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-z]+$"},
		"e":{"type":"string","format":"email"},
		"u":{"type":"array","uniqueItems":true},
		"n":{"type":"integer","minimum":1,"maximum":5,"exclusiveMaximum":4},
		"a":{"type":"array","minItems":2,"items":{"type":"integer"}},
		"c":{"const":"x"},
		"f":false,
		"o":{"type":"object","minProperties":1},
		"m":{"type":"number","multipleOf":2}
	}}`)
	tests := []struct{ args, want string }{
		{`{"s":"a"}`, `"s" must be at least 2 characters long`},
		{`{"s":"abcd"}`, `"s" must be at most 3 characters long`},
		{`{"s":"AB"}`, `"s" must match the pattern "^[a-z]+$"`},
		{`{"e":"abc"}`, `"e" must be a valid email`},
		{`{"u":[1,2,1]}`, `"u" must not contain duplicates, but items 0 and 2 are equal`},
		{`{"n":0}`, `"n" must be 1 or greater`},
		{`{"n":4}`, `"n" must be less than 4`},
		{`{"n":1.5}`, `"n" must be an integer, got number`},
		{`{"a":[1]}`, `"a" must contain at least 2 items`},
		{`{"a":[1,"x"]}`, `"a[1]" must be an integer, got string`},
		{`{"c":"y"}`, `"c" must be "x"`},
		{`{"f":1}`, `"f" is not allowed`},
		{`{"o":{}}`, `"o" must contain at least 1 entry`},
		{`{"m":3}`, `"m" must be a multiple of 2`},
	}
	for _, tt := range tests {
		_, err := s.Validate(json.RawMessage(tt.args))
		fes := fieldErrors(t, err)
		if len(fes) != 1 || fes[0].Message != tt.want {
			t.Errorf("Validate(%s) = %+v\nwant message %s", tt.args, fes, tt.want)
		}
	}
}

func TestRawNormalizesValues(t *testing.T) {
	s := mustRaw(t, `{"type":"object"}`)
	v, err := s.Validate(json.RawMessage(`{"i":1,"f":1.5,"big":1e400,"o":{"l":[2,{"x":3}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Values{"i": int64(1), "f": 1.5, "big": json.Number("1e400"),
		"o": Values{"l": []any{int64(2), Values{"x": int64(3)}}}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Values\n got %#v\nwant %#v", v, want)
	}
	for _, args := range []string{``, `null`} {
		if v, err := s.Validate(json.RawMessage(args)); err != nil || len(v) != 0 {
			t.Errorf("Validate(%q) = %v, %v", args, v, err)
		}
	}
	if _, err := s.Validate(json.RawMessage(`[1]`)); err == nil {
		t.Error("array accepted")
	}
}

func TestRawFields(t *testing.T) {
	s := mustRaw(t, `{"type":"object","required":["b","nope"],"properties":{
		"b":{"type":"integer","title":"B","description":"the b","x-mcp-header":"X-B"},
		"a":{"enum":["x","y"]},
		"c":{"enum":["x",1]},
		"d":{"type":["string","null"]},
		"e":true
	}}`)
	want := []FieldInfo{
		{Name: "b", Title: "B", Description: "the b", Type: "integer", Required: true, Header: "X-B"},
		{Name: "a", Enum: []string{"x", "y"}},
		{Name: "c"},
		{Name: "d"},
		{Name: "e"},
	}
	if got := s.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields()\n got %+v\nwant %+v", got, want)
	}
	if got := mustRaw(t, `{"type":"object"}`).Fields(); len(got) != 0 {
		t.Errorf("Fields() without properties = %v", got)
	}
}

func TestRawErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object"`, "not valid JSON"},
		{`{"type":"object"} {}`, "not valid JSON"},
		{``, "not valid JSON"},
		{`[]`, "must be a JSON object"},
		{`{"properties":{}}`, `"type": "object"`},
		{`{"type":"array"}`, `"type": "object"`},
		{`{"type":["object"]}`, `"type": "object"`},
		{`{"type":"object","properties":{"a":{"type":"strin"}}}`, "not a valid JSON Schema"},
		{`{"type":"object","minProperties":-1}`, "not a valid JSON Schema"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "not a valid JSON Schema"},
		{`{"type":"object","properties":{"a":{"$ref":"https://example.com/remote.json"}}}`, "not loaded"},
		{`{"type":"object","properties":{"a":{"$ref":"file:///etc/hostname"}}}`, "not loaded"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"strin"}}}`, "not a valid JSON Schema"},
	}
	for _, tt := range tests {
		s, err := Raw([]byte(tt.schema))
		if err == nil {
			t.Errorf("Raw(%s) succeeded: %s", tt.schema, s.JSON())
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Raw(%s) error %q does not contain %q", tt.schema, err, tt.want)
		}
	}
}

func TestRawBind(t *testing.T) {
	s := mustRaw(t, contactSchema)
	var dst struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	if err := s.Bind(json.RawMessage(`{"name":"Ada","email":"a@b.c"}`), &dst); err != nil || dst.Name != "Ada" || dst.Email != "a@b.c" {
		t.Errorf("Bind = %+v, %v", dst, err)
	}
	if err := s.Bind(json.RawMessage(`{"name":"Ada"}`), &dst); err == nil {
		t.Error("Bind accepted invalid arguments")
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sortBriefs(bs []brief) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].Path < bs[j-1].Path; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}
