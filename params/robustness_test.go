package params

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type fuzzParams struct {
	Name  string            `json:"name" validate:"min=1,max=8" default:"x"`
	Level int8              `json:"level" validate:"omitempty,oneof=1 2 3"`
	Ratio *float32          `json:"ratio" validate:"omitempty,gt=0"`
	Tags  []string          `json:"tags" validate:"max=3,dive,alphanum"`
	Inner *fuzzInner        `json:"inner"`
	List  []fuzzInner       `json:"list" validate:"dive"`
	Map   map[string]uint16 `json:"map" validate:"dive,max=9"`
	Arr   [2]bool           `json:"arr"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
}

type fuzzInner struct {
	When string `json:"when" validate:"omitempty,datetime"`
	N    uint   `json:"n" default:"4"`
}

// robustnessSchemas covers every kind of Schema.
func robustnessSchemas(t testing.TB) map[string]*Schema {
	t.Helper()
	declared, err := New(
		String("name", Required(), Validate("min=1,max=8,alphanum")),
		Integer("level", Validate("oneof=1 2 3")),
		Number("ratio", Validate("gt=0")),
		Boolean("flag", Default(true)),
		Enum("color", []string{"red", "ünï"}),
		Array("tags", String("", Validate("email")), Validate("max=3")),
		Array("matrix", Array("", Integer("")), Validate("dive,max=2")),
		Object("inner", []Field{String("when", Validate("datetime")), Integer("n", Default(4))}),
		Object("free", nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	structured, err := For[fuzzParams]()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Raw([]byte(contactSchema))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Schema{"declared": declared, "struct": structured, "raw": raw, "empty": Empty()}
}

var oddArguments = []string{
	``, `null`, `{}`, `[]`, `"x"`, `0`, `true`, `{`, `}`, `{"a":}`, `{"name":"x"}garbage`,
	`{"name":null,"level":null,"ratio":null,"flag":null,"tags":null,"inner":null,"free":null,"list":null,"map":null,"arr":null,"any":null}`,
	`{"tags":[null,null],"matrix":[[null]],"list":[null],"map":{"a":null},"arr":[null,null,null]}`,
	`{"level":1e308,"ratio":-1e308,"name":"9223372036854775808"}`,
	`{"level":123456789012345678901234567890,"ratio":1e-400,"map":{"k":1e400}}`,
	`{"level":-0.0,"ratio":0.0000001,"map":{"k":-1}}`,
	`{"name":"ünïcödé 🚀","color":"ünï","tags":["\u0000","\ud800"],"email":"a@b"}`,
	`{"name":{"nested":{"deeper":[1,2,{"x":null}]}}}`,
	`{"inner":{"when":"2020-13-45T99:99:99Z","n":"4"},"list":[{"when":5,"n":-1}],"free":{"a":[[[[]]]]}}`,
	`{"inner":[],"list":{},"map":[],"arr":{},"any":[1,{"a":1e999}],"raw":{"x":1e999}}`,
	`{"contactMethod":"phone","address":{"city":null},"name":"","phone":null}`,
	`{"__proto__":1,"constructor":{"prototype":1},"":"empty key"}`,
	"{\"name\":\"tab\tnewline\n\"}",
	`{"name":"a","name":"b","name":5}`,
	`{"name":"a","NAME":"b"}`,
	`{"Name":"a"}`,
	`{"inner":{"when":"2026-01-02T03:04:05Z","WHEN":"x"},"list":[{"n":1,"n":2}]}`,
	`{"map":{"a":1,"A":2},"free":{"k":1,"k":2}}`,
	`{"n\u0061me":"a","name":"b"}`,
	`{"city":"Paris","days":5,"units":"metric","hourly":true,"tags":["rain","wind"]}`,
	`{"name":"deploy","level":2,"tags":["a@b.c"],"inner":{"when":"2026-07-28T00:00:00Z","n":3},"list":[{"n":1}],"map":{"x":9},"arr":[true,false],"any":{"k":[1,2]},"raw":{"z":null}}`,
	strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
	`{"any":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`,
	`{"free":` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat("}", 5000) + `}`,
	`{"name":"` + strings.Repeat("x", 1<<16) + `"}`,
	`{"level":` + strings.Repeat("9", 400) + `}`,
}

// exercise runs every entry point and checks the invariants that hold for
// any input: no panic, errors are *ValidationError, results are JSON.
func exercise(t *testing.T, s *Schema, args []byte) {
	v, err := s.Validate(args)
	if err != nil {
		if _, ok := err.(*ValidationError); !ok {
			t.Fatalf("Validate(%.80q): error %T %v is not a *ValidationError", args, err, err)
		}
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
	} else if _, merr := json.Marshal(v); merr != nil {
		t.Fatalf("Validate(%.80q) returned values that are not JSON: %v", args, merr)
	} else if key, repeated := repeatedKey(args); repeated {
		t.Fatalf("Validate(%.80q) accepted the repeated key %q", args, key)
	}
	var p fuzzParams
	_ = s.Bind(args, &p)
	var m map[string]any
	_ = s.Bind(args, &m)
}

func TestOddArgumentsNeverPanic(t *testing.T) {
	for name, s := range robustnessSchemas(t) {
		t.Run(name, func(t *testing.T) {
			for _, args := range oddArguments {
				exercise(t, s, []byte(args))
			}
		})
	}
}

func FuzzValidate(f *testing.F) {
	for _, args := range oddArguments {
		if len(args) < 1024 {
			f.Add([]byte(args))
		}
	}
	schemas := robustnessSchemas(f)
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, s := range schemas {
			exercise(t, s, args)
		}
	})
}

// repeatedKey finds a key given twice in one object of the JSON text data,
// with encoding/json's tokenizer rather than the scanner under test.
func repeatedKey(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type object struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*object
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'):
			if top != nil {
				top.wantKey = true
			}
			stack = append(stack, &object{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			if top != nil {
				top.wantKey = true
			}
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if top == nil {
			continue
		}
		if top.wantKey {
			key := tok.(string)
			if top.keys[key] {
				return key, true
			}
			top.keys[key] = true
		}
		top.wantKey = !top.wantKey
	}
}
