package params

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// mustNew compiles fields or stops the test.
func mustNew(t testing.TB, fields ...Field) *Schema {
	t.Helper()
	s, err := New(fields...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// fieldErrors returns the field errors of err, failing if err is not a
// *ValidationError.
func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	return verr.Fields
}

// brief is a FieldError without its message, for compact expectations.
type brief struct{ Path, Rule, Param string }

func briefs(fes []FieldError) []brief {
	out := make([]brief, len(fes))
	for i, fe := range fes {
		out[i] = brief{fe.Path, fe.Rule, fe.Param}
		if !strings.Contains(fe.Message, fe.Path) {
			// Every message names its path, except for the whole arguments.
			panic("message " + fe.Message + " does not name " + fe.Path)
		}
	}
	return out
}

func TestValidateReportsEveryField(t *testing.T) {
	s := mustNew(t,
		String("name", Required(), Validate("min=2,max=8")),
		Integer("count", Validate("min=1,max=10")),
		Number("ratio", Validate("gt=0,lt=1")),
		Boolean("dry"),
		Enum("color", []string{"red", "green"}),
		Array("tags", String("", Validate("alphanum")), Validate("max=2,dive,max=4")),
		Object("address", []Field{
			String("city", Required()),
			String("zip", Validate("len=5")),
		}, Required()),
		String("email", Validate("omitempty,email")),
		Integer("level", Validate("oneof=1 2 3")),
	)
	args := `{
		"count": "5",
		"ratio": 1,
		"dry": "yes",
		"color": "blue",
		"tags": ["ok", "toolong", "a-b"],
		"address": {"zip": "123"},
		"email": "nope",
		"level": 4,
		"unknown": true
	}`
	_, err := s.Validate(json.RawMessage(args))
	got := briefs(fieldErrors(t, err))
	want := []brief{
		{"name", "required", ""},
		{"count", "type", "integer"},
		{"ratio", "lt", "1"},
		{"dry", "type", "boolean"},
		{"color", "enum", "red green"},
		{"tags[1]", "max", "4"},
		{"tags[2]", "alphanum", ""},
		{"tags", "max", "2"},
		{"address.city", "required", ""},
		{"address.zip", "len", "5"},
		{"email", "email", ""},
		{"level", "oneof", "1 2 3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n got %v\nwant %v", got, want)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	s := mustNew(t,
		String("bar", Required()),
		Integer("count"),
		Array("tags", String("", Validate("max=64"))),
	)
	_, err := s.Validate(json.RawMessage(`{"count":"5","tags":["ok","` + strings.Repeat("x", 65) + `"]}`))
	want := `invalid arguments: "bar" is required; "count" must be an integer, got string; "tags[1]" must be at most 64 characters long`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestRuleMessages(t *testing.T) {
	tests := []struct {
		field Field
		arg   string
		want  string
	}{
		{String("f", Required()), ``, `"f" is required`},
		{String("f", Validate("min=3")), `"ab"`, `"f" must be at least 3 characters long`},
		{String("f", Validate("max=1")), `"ab"`, `"f" must be at most 1 character long`},
		{String("f", Validate("len=3")), `"ab"`, `"f" must be exactly 3 characters long`},
		{String("f", Validate("gt=2")), `"ab"`, `"f" must be longer than 2 characters`},
		{String("f", Validate("lt=2")), `"ab"`, `"f" must be shorter than 2 characters`},
		{Integer("f", Validate("min=3")), `2`, `"f" must be 3 or greater`},
		{Integer("f", Validate("max=3")), `4`, `"f" must be 3 or less`},
		{Integer("f", Validate("len=3")), `4`, `"f" must be equal to 3`},
		{Number("f", Validate("gt=0")), `0`, `"f" must be greater than 0`},
		{Number("f", Validate("gte=0.5")), `0.25`, `"f" must be 0.5 or greater`},
		{Number("f", Validate("lt=1")), `1`, `"f" must be less than 1`},
		{Number("f", Validate("lte=1")), `1.5`, `"f" must be 1 or less`},
		{Array("f", String(""), Validate("min=2")), `["a"]`, `"f" must contain at least 2 items`},
		{Array("f", String(""), Validate("max=1")), `["a","b"]`, `"f" must contain at most 1 item`},
		{Object("f", nil, Validate("min=1")), `{}`, `"f" must contain at least 1 entry`},
		{String("f", Validate("oneof=a 'b c'")), `"x"`, `"f" must be one of: "a", "b c"`},
		{Integer("f", Validate("oneof=1 2")), `3`, `"f" must be one of: 1, 2`},
		{Enum("f", []string{"a", "b"}), `"x"`, `"f" must be one of: "a", "b"`},
		{String("f", Validate("email")), `"x"`, `"f" must be a valid email address`},
		{String("f", Validate("url")), `"x"`, `"f" must be a valid URL`},
		{String("f", Validate("uri")), `"x"`, `"f" must be a valid URI`},
		{String("f", Validate("uuid")), `"x"`, `"f" must be a valid UUID`},
		{String("f", Validate("uuid4")), `"x"`, `"f" must be a valid UUID`},
		{String("f", Validate("hostname")), `"-x-"`, `"f" must be a valid hostname`},
		{String("f", Validate("ipv4")), `"x"`, `"f" must be a valid IPv4 address`},
		{String("f", Validate("ipv6")), `"1.2.3.4"`, `"f" must be a valid IPv6 address`},
		{String("f", Validate("datetime")), `"2024-01-02"`, `"f" must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z`},
		{String("f", Validate("datetime=2006-01-02")), `"x"`, `"f" must be a date-time in the layout "2006-01-02"`},
		{String("f", Validate("alphanum")), `"a-b"`, `"f" must contain only ASCII letters and digits`},
		{String("f", Validate("alpha")), `"a1"`, `"f" must contain only ASCII letters`},
		{String("f", Validate("numeric")), `"1a"`, `"f" must be a numeric string`},
		{String("f", Validate("startswith=ab")), `"x"`, `"f" must start with "ab"`},
		{String("f", Validate("endswith=ab")), `"x"`, `"f" must end with "ab"`},
		{String("f", Validate("contains=ab")), `"x"`, `"f" must contain "ab"`},
		{String("f", Validate("lowercase")), `"X"`, `"f" must be lowercase`},
		{String("f", Validate("printascii")), `"é"`, `"f" must satisfy printascii`},
		{String("f", Validate("e164")), `"x"`, `"f" must satisfy e164`},
		{String("f", Validate("excludesall=!?")), `"a!"`, `"f" must not contain any of the characters "!?"`},
		{Integer("f"), `"5"`, `"f" must be an integer, got string`},
		{Integer("f"), `1.5`, `"f" must be an integer, got 1.5`},
		{Integer("f"), `1e30`, `"f" must be 9223372036854775807 or less`},
		{Integer("f"), `-1e30`, `"f" must be -9223372036854775808 or greater`},
		{Integer("f"), `92233720368547758070`, `"f" must be 9223372036854775807 or less`},
		{Number("f"), `1e400`, `"f" is too large a number`},
		{String("f"), `1`, `"f" must be a string, got number`},
		{Boolean("f"), `"true"`, `"f" must be a boolean, got string`},
		{Array("f", String("")), `"a"`, `"f" must be an array, got string`},
		{Object("f", nil), `[]`, `"f" must be an object, got array`},
		{Array("f", String("")), `[null]`, `"f[0]" must be a string, got null`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			s := mustNew(t, tt.field)
			args := `{}`
			if tt.arg != "" {
				args = `{"f":` + tt.arg + `}`
			}
			_, err := s.Validate(json.RawMessage(args))
			fes := fieldErrors(t, err)
			if len(fes) != 1 || fes[0].Message != tt.want {
				t.Errorf("errors %+v\nwant one with message %s", fes, tt.want)
			}
		})
	}
}

func TestStrictTypes(t *testing.T) {
	s := mustNew(t,
		String("s"), Integer("i"), Number("n"), Boolean("b"),
		Array("a", Integer("")), Object("o", []Field{Integer("x")}),
	)
	tests := []struct {
		args string
		ok   bool
	}{
		{`{"s":"x","i":1,"n":1.5,"b":false,"a":[1,2],"o":{"x":3}}`, true},
		{`{"i":2.0}`, true},  // integral
		{`{"i":1e3}`, true},  // integral
		{`{"i":-0}`, true},   // integral
		{`{"n":7}`, true},    // an integer is a number
		{`{"i":"5"}`, false}, // no string to integer
		{`{"i":1.5}`, false}, // no truncation
		{`{"i":true}`, false},
		{`{"n":"1.5"}`, false},
		{`{"s":1}`, false},
		{`{"s":true}`, false},
		{`{"s":["x"]}`, false},
		{`{"b":"true"}`, false},
		{`{"b":1}`, false},
		{`{"a":"1,2"}`, false},
		{`{"a":[1,"2"]}`, false},
		{`{"a":{"0":1}}`, false},
		{`{"o":"x"}`, false},
		{`{"o":{"x":"3"}}`, false},
		{`{"o":[]}`, false},
	}
	for _, tt := range tests {
		_, err := s.Validate(json.RawMessage(tt.args))
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%s) error = %v, want ok = %v", tt.args, err, tt.ok)
		}
	}
}

func TestValidateNormalizes(t *testing.T) {
	s := mustNew(t,
		String("s"), Integer("i"), Number("n"), Boolean("b"),
		Array("a", Integer("")),
		Object("o", []Field{Number("x"), Array("deep", Object("", []Field{Integer("k")}))}),
		Object("free", nil),
	)
	v, err := s.Validate(json.RawMessage(`{
		"s": "é", "i": 2.0, "n": 3, "b": true,
		"a": [1, 2],
		"o": {"x": 1, "deep": [{"k": 7, "drop": 1}], "drop": 2},
		"free": {"int": 1, "float": 1.5, "nested": {"list": [1, {"y": 2}]}},
		"drop": 3
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Values{
		"s": "é", "i": int64(2), "n": float64(3), "b": true,
		"a": []any{int64(1), int64(2)},
		"o": Values{"x": float64(1), "deep": []any{Values{"k": int64(7)}}},
		"free": Values{"int": int64(1), "float": 1.5,
			"nested": Values{"list": []any{int64(1), Values{"y": int64(2)}}}},
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Values\n got %#v\nwant %#v", v, want)
	}
}

func TestDefaults(t *testing.T) {
	s := mustNew(t,
		String("s", Default("x")),
		Integer("i", Default(3)),
		Number("n", Default(0.5)),
		Boolean("b", Default(true)),
		Enum("e", []string{"a", "b"}, Default("b")),
		Array("a", String(""), Default([]string{"p", "q"})),
		Object("o", []Field{Integer("k", Default(1)), String("r")}),
	)
	tests := []struct {
		args string
		want Values
	}{
		{`{}`, Values{"s": "x", "i": int64(3), "n": 0.5, "b": true, "e": "b", "a": []any{"p", "q"}}},
		{`{"s":"given","i":null,"b":false,"o":{}}`,
			Values{"s": "given", "i": int64(3), "n": 0.5, "b": false, "e": "b", "a": []any{"p", "q"}, "o": Values{"k": int64(1)}}},
		{`{"o":{"k":null,"r":null}}`,
			Values{"s": "x", "i": int64(3), "n": 0.5, "b": true, "e": "b", "a": []any{"p", "q"}, "o": Values{"k": int64(1)}}},
	}
	for _, tt := range tests {
		v, err := s.Validate(json.RawMessage(tt.args))
		if err != nil {
			t.Fatalf("Validate(%s): %v", tt.args, err)
		}
		if !reflect.DeepEqual(v, tt.want) {
			t.Errorf("Validate(%s)\n got %#v\nwant %#v", tt.args, v, tt.want)
		}
	}

	// A handler that modifies a default must not change it for later calls.
	v, _ := s.Validate(nil)
	v["a"].([]any)[0] = "changed"
	v, _ = s.Validate(nil)
	if got := v.Strings("a"); !reflect.DeepEqual(got, []string{"p", "q"}) {
		t.Errorf("default changed by an earlier caller: %v", got)
	}
}

func TestNullAndEmptyArguments(t *testing.T) {
	s := mustNew(t, String("opt"), Integer("n", Default(1)))
	for _, args := range []string{"", " \n\t", "null", " null ", "{}"} {
		v, err := s.Validate(json.RawMessage(args))
		if err != nil {
			t.Errorf("Validate(%q): %v", args, err)
			continue
		}
		if !reflect.DeepEqual(v, Values{"n": int64(1)}) {
			t.Errorf("Validate(%q) = %v", args, v)
		}
	}
	if v, err := s.Validate(nil); err != nil || v == nil {
		t.Errorf("Validate(nil) = %v, %v", v, err)
	}

	// null is absent: fine when optional, an error when required.
	v, err := s.Validate(json.RawMessage(`{"opt":null}`))
	if err != nil || v.Has("opt") {
		t.Errorf("optional null: %v, %v", v, err)
	}
	req := mustNew(t, String("r", Required()))
	_, err = req.Validate(json.RawMessage(`{"r":null}`))
	if got := briefs(fieldErrors(t, err)); !reflect.DeepEqual(got, []brief{{"r", "required", ""}}) {
		t.Errorf("required null: %v", got)
	}
}

func TestArgumentsMustBeAnObject(t *testing.T) {
	s := mustNew(t, String("a"))
	tests := []struct{ args, rule, msg string }{
		{`[]`, "type", "arguments must be a JSON object, got array"},
		{`"x"`, "type", "arguments must be a JSON object, got string"},
		{`1`, "type", "arguments must be a JSON object, got number"},
		{`true`, "type", "arguments must be a JSON object, got boolean"},
		{`{`, "json", "arguments are not valid JSON"},
		{`{"a":"x"}{}`, "json", "arguments are not valid JSON"},
		{`{"a":"x",}`, "json", "arguments are not valid JSON"},
	}
	for _, tt := range tests {
		_, err := s.Validate(json.RawMessage(tt.args))
		fes := fieldErrors(t, err)
		if len(fes) != 1 || fes[0].Rule != tt.rule || !strings.HasPrefix(fes[0].Message, tt.msg) || fes[0].Path != "" {
			t.Errorf("Validate(%s) = %+v, want rule %s and message %q", tt.args, fes, tt.rule, tt.msg)
		}
	}
}

func TestRequiredRuleIsPresence(t *testing.T) {
	// In declarations, required means present: false and "" are values.
	s := mustNew(t, Boolean("b", Validate("required")), String("s", Validate("required")))
	if _, err := s.Validate(json.RawMessage(`{"b":false,"s":""}`)); err != nil {
		t.Errorf("false and empty string rejected: %v", err)
	}
	_, err := s.Validate(json.RawMessage(`{}`))
	want := []brief{{"b", "required", ""}, {"s", "required", ""}}
	if got := briefs(fieldErrors(t, err)); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
}

func TestOmitemptyRulesApplyWhenPresent(t *testing.T) {
	s := mustNew(t, String("s", Validate("omitempty,min=3")))
	if _, err := s.Validate(json.RawMessage(`{}`)); err != nil {
		t.Errorf("absent: %v", err)
	}
	if _, err := s.Validate(json.RawMessage(`{"s":""}`)); err == nil {
		t.Error(`present "" passed min=3`)
	}
}

func TestDateTimeRule(t *testing.T) {
	s := mustNew(t, String("at", Validate("datetime")), String("day", Validate("datetime=2006-01-02")))
	if _, err := s.Validate(json.RawMessage(`{"at":"2024-05-06T07:08:09+02:00","day":"2024-05-06"}`)); err != nil {
		t.Errorf("valid date-times rejected: %v", err)
	}
	_, err := s.Validate(json.RawMessage(`{"at":"2024-05-06","day":"2024-05-06T07:08:09Z"}`))
	want := []brief{{"at", "datetime", ""}, {"day", "datetime", "2006-01-02"}}
	if got := briefs(fieldErrors(t, err)); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
}

func TestBindDeclared(t *testing.T) {
	s := mustNew(t,
		String("name", Required()),
		Integer("count", Default(2)),
		Array("tags", String("")),
		Object("opts", []Field{Boolean("fast")}),
	)
	type opts struct {
		Fast bool `json:"fast"`
	}
	var dst struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
		Opts  opts     `json:"opts"`
	}
	if err := s.Bind(json.RawMessage(`{"name":"n","tags":["a"],"opts":{"fast":true}}`), &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Name != "n" || dst.Count != 2 || !reflect.DeepEqual(dst.Tags, []string{"a"}) || !dst.Opts.Fast {
		t.Errorf("Bind = %+v", dst)
	}
	if err := s.Bind(json.RawMessage(`{}`), &dst); err == nil {
		t.Error("Bind accepted missing required name")
	}
	if err := s.Bind(json.RawMessage(`{"name":"n"}`), nil); err == nil {
		t.Error("Bind into nil succeeded")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustNew(t,
		String("name", Required(), Validate("min=1")),
		Array("tags", String(""), Default([]string{"a"})),
	)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				v, err := s.Validate(json.RawMessage(`{"name":"x"}`))
				if err != nil {
					t.Error(err)
					return
				}
				v["tags"].([]any)[0] = i // must not race with other callers
				if _, err := s.Validate(json.RawMessage(`{}`)); err == nil {
					t.Error("missing name accepted")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestNilSchema(t *testing.T) {
	var s *Schema
	if got := string(s.JSON()); got != `{"type":"object"}` {
		t.Errorf("JSON() = %s", got)
	}
	if v, err := s.Validate(json.RawMessage(`{"a":1}`)); err != nil || len(v) != 0 {
		t.Errorf("Validate = %v, %v", v, err)
	}
}

// TestLengthRulesAgreeWithValidator: the length rules checked without
// validator fail exactly where validator fails, with its rule and param.
func TestLengthRulesAgreeWithValidator(t *testing.T) {
	for _, tags := range []string{"min=1", "max=3", "len=2", "min=1,max=3", "max=3,min=2", "len=0", "min=0,max=0,len=1"} {
		rules := lengthRules(tags)
		if rules == nil {
			t.Fatalf("%q was not read as length rules", tags)
		}
		for _, s := range []string{"", "a", "ab", "abc", "abcd", "éé", "日本語", "\xff\xfe"} {
			got := failedLength(rules, s)
			var want []FieldError
			if err := checkValue(s, tags); err != nil {
				want = ruleErrors(err, "x")
			}
			switch {
			case got == nil && want != nil, got != nil && want == nil:
				t.Errorf("%q on %q: native %v, validator %v", tags, s, got, want)
			case got != nil && (fieldError("x", got.tag, got.param, kindString) != want[0] || len(want) != 1):
				t.Errorf("%q on %q: native %+v, validator %+v", tags, s, fieldError("x", got.tag, got.param, kindString), want)
			}
		}
	}
	for _, tags := range []string{"", "min=1,email", "min=01", "min=-1", "min=0x10", "gte=1", "min=1, max=2", "min="} {
		if lengthRules(tags) != nil {
			t.Errorf("%q was read as length rules", tags)
		}
	}
}
