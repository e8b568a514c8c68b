package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// member is a key and its value as text.
type member struct{ key, value string }

func members(t *testing.T, data string) []member {
	t.Helper()
	o, ok := Members([]byte(data))
	if !ok {
		t.Fatalf("Members(%s): not an object", data)
	}
	var out []member
	for {
		k, v, ok := o.Next()
		if !ok {
			return out
		}
		out = append(out, member{string(k), string(v)})
	}
}

// reference lists the members as encoding/json's tokenizer reads them.
func reference(t testing.TB, data string) []member {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("reference(%s): not an object", data)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), string(v)})
	}
	return out
}

func TestMembers(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []member
	}{
		{"empty", `{}`, nil},
		{"spaces", " \n{ \t}\r\n", nil},
		{"scalars", `{"a":1,"b":"x","c":true,"d":null,"e":-1.5e3}`,
			[]member{{"a", "1"}, {"b", `"x"`}, {"c", "true"}, {"d", "null"}, {"e", "-1.5e3"}}},
		{"nested", `{"a":{"b":[1,{"c":"}]"}]},"d":[]}`,
			[]member{{"a", `{"b":[1,{"c":"}]"}]}`}, {"d", "[]"}}},
		{"whitespace everywhere", "{ \"a\" :\n[ 1 , 2 ] ,\t\"b\" : { } }",
			[]member{{"a", "[ 1 , 2 ]"}, {"b", "{ }"}}},
		{"escaped key", `{"m\u0065thod":1,"a\"b":2,"c\\":3}`,
			[]member{{"method", "1"}, {`a"b`, "2"}, {`c\`, "3"}}},
		{"escaped quote in value", `{"a":"x\"}","b":2}`, []member{{"a", `"x\"}"`}, {"b", "2"}}},
		{"invalid UTF-8 key", "{\"a\xff\":1}", []member{{"a\uFFFD", "1"}}},
		{"repeated key", `{"a":1,"a":2}`, []member{{"a", "1"}, {"a", "2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := members(t, tt.data)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMembersNotObject(t *testing.T) {
	for _, data := range []string{``, ` `, `[]`, `"{"`, `1`, `null`} {
		if _, ok := Members([]byte(data)); ok {
			t.Errorf("Members(%q) ok", data)
		}
	}
	var zero Object
	if _, _, ok := zero.Next(); ok {
		t.Error("zero Object yields a member")
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		data string
		want []string
	}{
		{`[]`, nil},
		{` [ ] `, nil},
		{`[1]`, []string{"1"}},
		{`[1, "a,]", {"b":[2]}, [3,[4]], null ,true]`, []string{"1", `"a,]"`, `{"b":[2]}`, "[3,[4]]", "null", "true"}},
	}
	for _, tt := range tests {
		a, ok := Elements([]byte(tt.data))
		if !ok {
			t.Fatalf("Elements(%s): not an array", tt.data)
		}
		var got []string
		for {
			v, ok := a.Next()
			if !ok {
				break
			}
			got = append(got, string(v))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Elements(%s) = %q, want %q", tt.data, got, tt.want)
		}
	}
	if _, ok := Elements([]byte(`{}`)); ok {
		t.Error("Elements({}) ok")
	}
}

// TestInvalidInputTerminates: the scanner gives no guarantee about what it
// yields for invalid JSON, but it must stop and not panic.
func TestInvalidInputTerminates(t *testing.T) {
	for _, data := range []string{`{`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a":"`, `{"a":{`, `{"a":1,`, `{,,,}`, `{"a":1 "b":2}`, `{:::}`, `[`, `[,`, `[1,`, `["\`, `[{]`} {
		if o, ok := Members([]byte(data)); ok {
			for i := 0; ; i++ {
				if _, _, ok := o.Next(); !ok {
					break
				}
				if i > len(data) {
					t.Fatalf("Members(%q) does not stop", data)
				}
			}
		}
		if a, ok := Elements([]byte(data)); ok {
			for i := 0; ; i++ {
				if _, ok := a.Next(); !ok {
					break
				}
				if i > len(data) {
					t.Fatalf("Elements(%q) does not stop", data)
				}
			}
		}
	}
}

func TestSet(t *testing.T) {
	var s Set
	for i := range 40 {
		k := []byte(strings.Repeat("k", i))
		if s.Add(k) {
			t.Fatalf("key %d reported as repeated", i)
		}
		if !s.Add(bytes.Clone(k)) {
			t.Fatalf("key %d not reported as repeated", i)
		}
	}
}

func TestSetSmallDoesNotAllocate(t *testing.T) {
	keys := [][]byte{[]byte("jsonrpc"), []byte("id"), []byte("method"), []byte("params")}
	allocs := testing.AllocsPerRun(100, func() {
		var s Set
		for _, k := range keys {
			s.Add(k)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[1,{"c":"]"}],"d":{"e":null}}`, `{"m\u0065thod":"x","a\"":"\\"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[true,false]}}}`,
		"{\"\xff\":1}", `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, ok := Members(data)
		var got []member
		for ok {
			k, v, more := o.Next()
			if !more {
				break
			}
			got = append(got, member{string(k), string(v)})
			if len(got) > len(data) {
				t.Fatal("does not stop")
			}
		}
		if !ok || !json.Valid(data) {
			return
		}
		// On valid JSON the members are exactly what encoding/json reads.
		if want := reference(t, string(data)); !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}
