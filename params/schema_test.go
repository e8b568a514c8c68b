package params

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// property compiles a single declared field and returns the JSON of its
// property schema, to keep table rows short.
func propertyJSON(t *testing.T, f Field) string {
	t.Helper()
	s, err := New(f)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(s.JSON(), &doc); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, s.JSON())
	}
	return string(doc.Properties[f.name])
}

func TestRuleKeywords(t *testing.T) {
	tests := []struct {
		name  string
		field Field
		want  string
	}{
		// Strings: lengths.
		{"string min max", String("f", Validate("min=1,max=64")), `{"type":"string","minLength":1,"maxLength":64}`},
		{"string len", String("f", Validate("len=5")), `{"type":"string","minLength":5,"maxLength":5}`},
		{"string gt lt", String("f", Validate("gt=3,lt=10")), `{"type":"string","minLength":4,"maxLength":9}`},
		{"string gte lte", String("f", Validate("gte=3,lte=10")), `{"type":"string","minLength":3,"maxLength":10}`},
		{"tightest bound wins", String("f", Validate("min=2,gte=5,max=9,lt=7")), `{"type":"string","minLength":5,"maxLength":6}`},
		// Integers and numbers: values.
		{"integer min max", Integer("f", Validate("min=1,max=10")), `{"type":"integer","minimum":1,"maximum":10}`},
		{"integer len", Integer("f", Validate("len=7")), `{"type":"integer","minimum":7,"maximum":7}`},
		{"integer gt lt", Integer("f", Validate("gt=0,lt=100")), `{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":100}`},
		{"integer gte lte", Integer("f", Validate("gte=-5,lte=5")), `{"type":"integer","minimum":-5,"maximum":5}`},
		{"integer hex param", Integer("f", Validate("max=0x10")), `{"type":"integer","maximum":16}`},
		{"number bounds", Number("f", Validate("gt=0,lte=1.5")), `{"type":"number","exclusiveMinimum":0,"maximum":1.5}`},
		{"number min max", Number("f", Validate("min=-0.5,max=2")), `{"type":"number","minimum":-0.5,"maximum":2}`},
		// Arrays: item counts.
		{"array min max", Array("f", String(""), Validate("min=1,max=3")), `{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string"}}`},
		{"array len", Array("f", Integer(""), Validate("len=2")), `{"type":"array","minItems":2,"maxItems":2,"items":{"type":"integer"}}`},
		{"array gt lt", Array("f", Boolean(""), Validate("gt=1,lt=4")), `{"type":"array","minItems":2,"maxItems":3,"items":{"type":"boolean"}}`},
		// oneof is typed like the field.
		{"oneof strings", String("f", Validate("oneof=red green 'dark blue'")), `{"type":"string","enum":["red","green","dark blue"]}`},
		{"oneof integers", Integer("f", Validate("oneof=1 2 3")), `{"type":"integer","enum":[1,2,3]}`},
		// Formats.
		{"email", String("f", Validate("email")), `{"type":"string","format":"email"}`},
		{"url", String("f", Validate("url")), `{"type":"string","format":"uri"}`},
		{"uri", String("f", Validate("uri")), `{"type":"string","format":"uri"}`},
		{"uuid", String("f", Validate("uuid")), `{"type":"string","format":"uuid"}`},
		{"uuid4", String("f", Validate("uuid4")), `{"type":"string","format":"uuid"}`},
		{"uuid_rfc4122", String("f", Validate("uuid_rfc4122")), `{"type":"string","format":"uuid"}`},
		{"hostname", String("f", Validate("hostname")), `{"type":"string","format":"hostname"}`},
		{"hostname_rfc1123", String("f", Validate("hostname_rfc1123")), `{"type":"string","format":"hostname"}`},
		{"ipv4", String("f", Validate("ipv4")), `{"type":"string","format":"ipv4"}`},
		{"ipv6", String("f", Validate("ipv6")), `{"type":"string","format":"ipv6"}`},
		{"datetime bare", String("f", Validate("datetime")), `{"type":"string","format":"date-time"}`},
		{"datetime RFC3339", String("f", Validate("datetime=2006-01-02T15:04:05Z07:00")), `{"type":"string","format":"date-time"}`},
		{"datetime other layout", String("f", Validate("datetime=2006-01-02")), `{"type":"string"}`},
		{"first format wins", String("f", Validate("email,url")), `{"type":"string","format":"email"}`},
		// dive moves the rules to the items.
		{"dive", Array("f", String(""), Validate("max=5,dive,min=1,max=64,email")),
			`{"type":"array","maxItems":5,"items":{"type":"string","format":"email","minLength":1,"maxLength":64}}`},
		{"dive merges with item rules", Array("f", Integer("", Validate("min=0")), Validate("dive,max=9")),
			`{"type":"array","items":{"type":"integer","minimum":0,"maximum":9}}`},
		{"nested dive", Array("f", Array("", String("")), Validate("dive,max=2,dive,len=1")),
			`{"type":"array","items":{"type":"array","maxItems":2,"items":{"type":"string","minLength":1,"maxLength":1}}}`},
		// Presence rules and rules without a keyword.
		{"omitempty", String("f", Validate("omitempty,max=3")), `{"type":"string","maxLength":3}`},
		{"validation only", String("f", Validate("alphanum,startswith=x,excludesall=!?,contains=a,endswith=z")), `{"type":"string"}`},
		{"alternation", String("f", Validate("email|url")), `{"type":"string"}`},
		// Annotations.
		{"annotations", String("f", Title("T"), Description("D"), Default("x")), `{"type":"string","title":"T","description":"D","default":"x"}`},
		{"enum", Enum("f", []string{"a", "b"}, Default("b")), `{"type":"string","enum":["a","b"],"default":"b"}`},
		{"header", Integer("f", Header("X-Count")), `{"type":"integer","x-mcp-header":"X-Count"}`},
		{"object", Object("f", []Field{String("b", Required()), Integer("a", Validate("required"))}),
			`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b","a"]}`},
		{"object min max", Object("f", nil, Validate("min=1,max=2")), `{"type":"object","minProperties":1,"maxProperties":2}`},
		{"array default", Array("f", String(""), Default([]string{"x", "y"})), `{"type":"array","items":{"type":"string"},"default":["x","y"]}`},
		{"object default", Object("f", []Field{Integer("n")}, Default(map[string]any{"n": 2})),
			`{"type":"object","properties":{"n":{"type":"integer"}},"default":{"n":2}}`},
		{"integral float default", Integer("f", Default(3.0)), `{"type":"integer","default":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := propertyJSON(t, tt.field); got != tt.want {
				t.Errorf("schema\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestNewSchemaJSON(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		want   string
	}{
		{"no fields", nil, `{"type":"object"}`},
		{"declaration order and required", []Field{
			String("zeta", Required()),
			Integer("alpha"),
			Boolean("mid", Validate("required")),
		}, `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"boolean"}},"required":["zeta","mid"]}`},
		{"no required", []Field{Number("x")}, `{"type":"object","properties":{"x":{"type":"number"}}}`},
		{"nested", []Field{
			Object("address", []Field{
				String("city", Required(), Validate("min=1")),
				Array("lines", String("", Validate("max=80")), Validate("max=3")),
			}, Required(), Description("Postal address")),
		}, `{"type":"object","properties":{"address":{"type":"object","description":"Postal address","properties":{"city":{"type":"string","minLength":1},"lines":{"type":"array","maxItems":3,"items":{"type":"string","maxLength":80}}},"required":["city"]}},"required":["address"]}`},
		{"array of objects", []Field{
			Array("items", Object("", []Field{String("sku", Required()), Integer("qty", Default(1))}), Validate("min=1")),
		}, `{"type":"object","properties":{"items":{"type":"array","minItems":1,"items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","default":1}},"required":["sku"]}}}}`},
		{"unicode and escaping", []Field{String("naïve \"q\"", Description("<é>"))},
			`{"type":"object","properties":{"naïve \"q\"":{"type":"string","description":"\u003cé\u003e"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.fields...)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := string(s.JSON()); got != tt.want {
				t.Errorf("schema\n got %s\nwant %s", got, tt.want)
			}
			// Deterministic: compiling again gives the same bytes.
			again, err := New(tt.fields...)
			if err != nil {
				t.Fatal(err)
			}
			if string(again.JSON()) != string(s.JSON()) {
				t.Error("schema is not deterministic")
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	s := Empty()
	if got := string(s.JSON()); got != `{"type":"object"}` {
		t.Errorf("JSON() = %s", got)
	}
	if f := s.Fields(); len(f) != 0 {
		t.Errorf("Fields() = %v", f)
	}
	v, err := s.Validate(json.RawMessage(`{"anything":1}`))
	if err != nil || len(v) != 0 {
		t.Errorf("Validate = %v, %v; want empty, nil", v, err)
	}
	if _, err := s.Validate(json.RawMessage(`[]`)); err == nil {
		t.Error("Validate accepted an array")
	}
}

func TestJSONReturnsCopy(t *testing.T) {
	s, err := New(String("a"))
	if err != nil {
		t.Fatal(err)
	}
	b := s.JSON()
	b[0] = 'X'
	if s.JSON()[0] != '{' {
		t.Error("modifying the result of JSON changed the schema")
	}
}

func TestFields(t *testing.T) {
	s, err := New(
		String("name", Required(), Title("Name"), Description("Who")),
		Enum("color", []string{"red", "green"}),
		String("size", Validate("oneof=s m l")),
		Integer("level", Validate("oneof=1 2")),
		Boolean("dry", Header("X-Dry-Run")),
		Array("tags", String("")),
		Object("meta", nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldInfo{
		{Name: "name", Title: "Name", Description: "Who", Type: "string", Required: true},
		{Name: "color", Type: "string", Enum: []string{"red", "green"}},
		{Name: "size", Type: "string", Enum: []string{"s", "m", "l"}},
		{Name: "level", Type: "integer"},
		{Name: "dry", Type: "boolean", Header: "X-Dry-Run"},
		{Name: "tags", Type: "array"},
		{Name: "meta", Type: "object"},
	}
	got := s.Fields()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Fields()\n got %+v\nwant %+v", got, want)
	}
	got[1].Enum[0] = "changed"
	if s.Fields()[1].Enum[0] != "red" {
		t.Error("modifying the result of Fields changed the schema")
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		want   []string // substrings of the error
	}{
		{"no name", []Field{String("")}, []string{"parameter 0 has no name"}},
		{"duplicate", []Field{String("a"), Integer("a")}, []string{`field "a" is declared twice`}},
		{"nested duplicate", []Field{Object("o", []Field{String("x"), String("x")})}, []string{`field "o.x" is declared twice`}},
		{"zero Field", []Field{{}}, []string{"parameter 0 has no name"}},
		{"unknown rule", []Field{String("a", Validate("bogus"))}, []string{`field "a"`, "bogus"}},
		{"empty rule", []Field{String("a", Validate("min=1,,max=2"))}, []string{`field "a"`, "empty rule"}},
		{"bad param", []Field{String("a", Validate("min=abc"))}, []string{`field "a"`, "min=abc"}},
		{"fractional integer bound", []Field{Integer("a", Validate("max=1.5"))}, []string{`field "a"`, "max=1.5"}},
		{"rule on wrong type", []Field{Boolean("a", Validate("min=1"))}, []string{`field "a"`, "booleans"}},
		{"format on integer", []Field{Integer("a", Validate("email"))}, []string{`field "a"`, "applies to strings"}},
		{"oneof on number", []Field{Number("a", Validate("oneof=1 2"))}, []string{`field "a"`, "oneof"}},
		{"oneof non-integer", []Field{Integer("a", Validate("oneof=1 x"))}, []string{`field "a"`, `"x" is not an integer`}},
		{"dive on string", []Field{String("a", Validate("dive,min=1"))}, []string{`field "a"`, "dive applies to arrays"}},
		{"bad rule after dive", []Field{Array("a", String(""), Validate("dive,nope"))}, []string{`field "a[]"`, "nope"}},
		{"cross-field rule", []Field{String("a", Validate("eqfield=B"))}, []string{`field "a"`, "struct"}},
		{"keys rule", []Field{Object("a", nil, Validate("keys,min=1,endkeys"))}, []string{`field "a"`}},
		{"enum without values", []Field{Enum("a", nil)}, []string{`field "a"`, "Enum has no values"}},
		{"enum repeated value", []Field{Enum("a", []string{"x", "x"})}, []string{`field "a"`, `"x" is repeated`}},
		{"enum and oneof", []Field{Enum("a", []string{"x"}, Validate("oneof=x"))}, []string{`field "a"`, "oneof"}},
		{"string default for integer", []Field{Integer("a", Default("5"))}, []string{`field "a"`, "must be an integer, got string"}},
		{"fractional default for integer", []Field{Integer("a", Default(1.5))}, []string{`field "a"`, "must be an integer, got 1.5"}},
		{"number default for string", []Field{String("a", Default(1))}, []string{`field "a"`, "must be a string"}},
		{"default outside enum", []Field{Enum("a", []string{"x"}, Default("y"))}, []string{`field "a"`, "must be one of"}},
		{"default breaking rules", []Field{String("a", Default(""), Validate("min=1"))}, []string{`field "a"`, "at least 1 character long"}},
		{"default of bad item", []Field{Array("a", Integer(""), Default([]any{1, "2"}))}, []string{`field "a"`, `"default[1]" must be an integer`}},
		{"null default", []Field{String("a", Default(nil))}, []string{`field "a"`, "null"}},
		{"unencodable default", []Field{String("a", Default(func() {}))}, []string{`field "a"`, "cannot be encoded"}},
		{"required with default", []Field{String("a", Required(), Default("x"))}, []string{`field "a"`, "cannot have a Default"}},
		{"header on array", []Field{Array("a", String(""), Header("X-A"))}, []string{`field "a"`, "Header is allowed only on string"}},
		{"header on object", []Field{Object("a", nil, Header("X-A"))}, []string{`field "a"`, "Header"}},
		{"header nested", []Field{Object("o", []Field{String("a", Header("X-A"))})}, []string{`field "o.a"`, "top-level"}},
		{"header on items", []Field{Array("a", String("", Header("X-A")))}, []string{`field "a"`, "items"}},
		{"bad header name", []Field{String("a", Header("X A"))}, []string{`field "a"`, "not a valid HTTP field name"}},
		{"duplicate header", []Field{String("a", Header("X-A")), String("b", Header("x-a"))}, []string{`field "b"`, `used by field "a"`}},
		{"array without items", []Field{{name: "a", kind: kindArray}}, []string{`field "a"`, "no items"}},
		{"nested property without name", []Field{Object("o", []Field{String("")})}, []string{`field "o"`, "no name"}},
		{"every error reported", []Field{String("a", Validate("bogus")), Integer("b", Default("x"))}, []string{`field "a"`, `field "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.fields...)
			if err == nil {
				t.Fatalf("New succeeded: %s", s.JSON())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestOptionsCopyInputs(t *testing.T) {
	values := []string{"a", "b"}
	f := Enum("e", values)
	values[0] = "z"
	s, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := propertyJSON(t, f); got != `{"type":"string","enum":["a","b"]}` {
		t.Errorf("enum changed with the caller's slice: %s", got)
	}
	if _, err := s.Validate(json.RawMessage(`{"e":"a"}`)); err != nil {
		t.Error(err)
	}
}
