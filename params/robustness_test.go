package params

import (
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
