package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// reference decodes data as encoding/json does for an any with UseNumber,
// the behaviour Decode must match.
func referenceDecode(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	// A Decoder stops after the first value; trailing text makes the
	// document invalid.
	if !json.Valid(data) {
		return nil, false
	}
	return v, true
}

var samples = []string{
	`{"name":"Ada","n":12,"f":-0.5e+3,"ok":true,"no":false,"nil":null,"list":[1,"two",{"three":[]}],"o":{}}`,
	`  "plain"  `, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"`, `"lone \ud800 x"`, `"\ud800\u0041"`,
	`"bad utf8 ` + "\xff\xfe" + `"`, `"é😀"`, `{"a":1,"a":2}`, `[]`, `[ ]`, `{ }`, `0`, `-0`, `1E9`, `1e-9`,
	``, ` `, `{`, `}`, `[1,]`, `{"a":}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `tru`, `nul`,
	`"unterminated`, "\"ctl \x01\"", `"\x"`, `"\u12"`, `"\u12G4"`, `[1] [2]`, `1 2`, `{"a":1}x`, `NaN`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range samples {
		want, wantOK := referenceDecode([]byte(s))
		got, ok := Decode([]byte(s))
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%.40q) = %#v, %v; encoding/json: %#v, %v", s, got, ok, want, wantOK)
		}
		if v := Valid([]byte(s)); v != json.Valid([]byte(s)) {
			t.Errorf("Valid(%.40q) = %v, want %v", s, v, !v)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{`"plain"`, `"a\nb \u00e9 \ud83d\ude00"`, `"x` + "\xff" + `"`} {
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := String([]byte(s)); !ok || got != want {
			t.Errorf("String(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
	for _, s := range []string{``, `x`, `"a`, `"a" `, `1`} {
		if _, ok := String([]byte(s)); ok {
			t.Errorf("String(%q) is ok", s)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range samples[:len(samples)-2] {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantOK := referenceDecode(data)
		got, ok := Decode(data)
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, %v; encoding/json: %#v, %v", data, got, ok, want, wantOK)
		}
		if Valid(data) != json.Valid(data) {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, !json.Valid(data), json.Valid(data))
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	data := []byte(`{"name":"Ada","count":3,"tags":["a","b"],"deep":{"ok":true,"n":null}}`)
	b.Run("jsonvalue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := Decode(data); !ok {
				b.Fatal("not ok")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := referenceDecode(data); !ok {
				b.Fatal("not ok")
			}
		}
	})
}
