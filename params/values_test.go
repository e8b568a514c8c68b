package params

import (
	"reflect"
	"testing"
)

func TestValuesAccessors(t *testing.T) {
	v := Values{
		"s":     "text",
		"i":     int64(42),
		"f":     2.5,
		"b":     true,
		"list":  []any{"a", "b"},
		"mixed": []any{"a", int64(1)},
		"typed": []string{"x"},
		"obj":   Values{"k": "v"},
		"map":   map[string]any{"k": int64(1)},
		"nil":   nil,
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"String", v.String("s"), "text"},
		{"String other type", v.String("i"), ""},
		{"String absent", v.String("nope"), ""},
		{"Int", v.Int("i"), 42},
		{"Int64", v.Int64("i"), int64(42)},
		{"Int64 of float", v.Int64("f"), int64(0)},
		{"Int64 absent", v.Int64("nope"), int64(0)},
		{"Float", v.Float("f"), 2.5},
		{"Float of int", v.Float("i"), 42.0},
		{"Float of string", v.Float("s"), 0.0},
		{"Bool", v.Bool("b"), true},
		{"Bool other type", v.Bool("s"), false},
		{"Strings", v.Strings("list"), []string{"a", "b"}},
		{"Strings mixed", v.Strings("mixed"), []string(nil)},
		{"Strings typed", v.Strings("typed"), []string{"x"}},
		{"Strings absent", v.Strings("nope"), []string(nil)},
		{"Object", v.Object("obj"), Values{"k": "v"}},
		{"Object of map", v.Object("map"), Values{"k": int64(1)}},
		{"Object other type", v.Object("s"), Values(nil)},
		{"Has", v.Has("nil"), true},
		{"Has absent", v.Has("nope"), false},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	if x, ok := v.Get("i"); !ok || x != int64(42) {
		t.Errorf("Get = %v, %v", x, ok)
	}
	if _, ok := v.Get("nope"); ok {
		t.Error("Get found an absent key")
	}
	var nilValues Values
	if nilValues.String("a") != "" || nilValues.Has("a") || nilValues.Object("a") != nil {
		t.Error("nil Values misbehaves")
	}
}

func TestValuesDecode(t *testing.T) {
	v := Values{"name": "n", "count": int64(3), "tags": []any{"a"}, "inner": Values{"ok": true}}
	var dst struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
		Inner struct {
			OK bool `json:"ok"`
		} `json:"inner"`
	}
	if err := v.Decode(&dst); err != nil {
		t.Fatal(err)
	}
	if dst.Name != "n" || dst.Count != 3 || !reflect.DeepEqual(dst.Tags, []string{"a"}) || !dst.Inner.OK {
		t.Errorf("Decode = %+v", dst)
	}
	var wrong struct {
		Count string `json:"count"`
	}
	if err := v.Decode(&wrong); err == nil {
		t.Error("Decode into a mismatched type succeeded")
	}
	if err := (Values{"f": func() {}}).Decode(&dst); err == nil {
		t.Error("Decode of an unencodable value succeeded")
	}
}
