package params

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

type strictAddress struct {
	City string `json:"city"`
}

type strictParams struct {
	Region  string                   `json:"region" header:"Region"`
	Count   int                      `json:"count" default:"2"`
	Address strictAddress            `json:"address"`
	Stops   []strictAddress          `json:"stops" validate:"dive"`
	Limits  map[string]strictAddress `json:"limits" validate:"dive"`
	Labels  map[string]string        `json:"labels"`
	Free    map[string]any           `json:"free"`
	Extra   json.RawMessage          `json:"extra"`
}

// strictSchemas declares the same parameters in the three ways.
func strictSchemas(t *testing.T) map[string]*Schema {
	t.Helper()
	address := []Field{String("city")}
	return map[string]*Schema{
		"For": mustFor[strictParams](t),
		"New": mustNew(t,
			String("region", Header("Region")),
			Integer("count", Default(2)),
			Object("address", address),
			Array("stops", Object("", address)),
			Object("labels", nil),
			Object("free", nil),
		),
		"Raw": mustRaw(t, `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer"},
			"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`),
	}
}

// TestAmbiguousKeysAreRejected: keys that another decoder, a gateway or
// the Mcp-Param-* header check would read differently from the handler's
// binding are a validation error naming the key. With encoding/json's
// rules, {"region":"us-west","REGION":"us-east"} bound region to us-east.
func TestAmbiguousKeysAreRejected(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		schemas []string // where the test applies, if not everywhere
		want    brief
	}{
		{"case variant after the key", `{"region":"us-west","REGION":"us-east"}`, nil, brief{"REGION", "case", "region"}},
		{"case variant before the key", `{"Region":"us-east","region":"us-west"}`, nil, brief{"Region", "case", "region"}},
		{"lone case variant", `{"REGION":"us-east"}`, nil, brief{"REGION", "case", "region"}},
		{"long s folds to s", "{\"region\":\"us-west\",\"count\":1,\"addre\u017f\u017f\":{}}", nil, brief{"addreſſ", "case", "address"}},
		{"duplicate key", `{"region":"us-west","region":"us-east"}`, nil, brief{"region", "duplicate", ""}},
		{"escaped duplicate", `{"region":"us-west","r\u0065gion":"us-east"}`, nil, brief{"region", "duplicate", ""}},
		{"duplicate undeclared key", `{"region":"a","zzz":1,"zzz":2}`, nil, brief{"zzz", "duplicate", ""}},
		{"nested case variant", `{"address":{"city":"a","CITY":"b"}}`, []string{"For", "New"}, brief{"address.CITY", "case", "city"}},
		{"nested duplicate", `{"address":{"city":"a","city":"b"}}`, nil, brief{"address.city", "duplicate", ""}},
		{"case variant in an array item", `{"stops":[{"city":"a"},{"City":"b"}]}`, []string{"For", "New"}, brief{"stops[1].City", "case", "city"}},
		{"duplicate in an array item", `{"stops":[{"city":"a","city":"b"}]}`, nil, brief{"stops[0].city", "duplicate", ""}},
		{"duplicate in an open object", `{"free":{"a":"1","a":"2"}}`, []string{"New", "Raw"}, brief{"free.a", "duplicate", ""}},
		{"duplicate in a map", `{"labels":{"a":"1","a":"2"}}`, []string{"For"}, brief{"labels[a]", "duplicate", ""}},
		{"duplicate deep in undeclared value", `{"zzz":[{"q":[{"a":1,"a":2}]}]}`, nil, brief{"zzz[0].q[0].a", "duplicate", ""}},
	}
	for _, tt := range tests {
		for name, s := range strictSchemas(t) {
			if tt.schemas != nil && !slices.Contains(tt.schemas, name) {
				continue
			}
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				_, err := s.Validate(json.RawMessage(tt.args))
				if err == nil {
					t.Fatalf("Validate(%s) succeeded", tt.args)
				}
				got := briefs(fieldErrors(t, err))
				if !slices.Contains(got, tt.want) {
					t.Errorf("errors %v, want %v", got, tt.want)
				}
				if name == "For" {
					var p strictParams
					err := s.Bind(json.RawMessage(tt.args), &p)
					if err == nil {
						t.Fatalf("Bind(%s) succeeded: %+v", tt.args, p)
					}
					if got := briefs(fieldErrors(t, err)); !slices.Contains(got, tt.want) {
						t.Errorf("Bind errors %v, want %v", got, tt.want)
					}
				}
			})
		}
	}
}

func TestAmbiguityMessageNamesTheArgument(t *testing.T) {
	s := mustFor[strictParams](t)
	err := s.Bind(json.RawMessage(`{"address":{"CITY":"b"}}`), new(strictParams))
	want := `"address.CITY" is not an argument; names are case-sensitive: write "address.city"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
	err = s.Bind(json.RawMessage(`{"region":"a","region":"b"}`), new(strictParams))
	want = `"region" is given twice`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestUnambiguousKeysStillPass: keys that every decoder reads alike are
// accepted as before: map keys differing in case, undeclared keys in any
// case, any case inside raw JSON values, and repeats in separate objects.
func TestUnambiguousKeysStillPass(t *testing.T) {
	s := mustFor[strictParams](t)
	args := `{"region":"us-west","limits":{"a":{"city":"x"},"A":{"city":"y"}},"labels":{"k":"1","K":"2"},
		"extra":{"Region":1,"region":2},"stops":[{"city":"a"},{"city":"b"}],"unknown":1,"UNKNOWN":2}`
	var p strictParams
	if err := s.Bind(json.RawMessage(args), &p); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if p.Region != "us-west" || p.Count != 2 || len(p.Limits) != 2 || p.Labels["K"] != "2" || len(p.Stops) != 2 {
		t.Errorf("bound %+v", p)
	}
	if _, err := s.Validate(json.RawMessage(args)); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	for name, s := range strictSchemas(t) {
		if _, err := s.Validate(json.RawMessage(`{"region":"a","labels":{"x":"1","X":"2"},"free":{"a":1,"A":2}}`)); err != nil {
			t.Errorf("%s: Validate: %v", name, err)
		}
	}
}

// TestAmbiguityAfterSyntax: arguments that are not JSON are reported as
// such, whatever their keys.
func TestAmbiguityAfterSyntax(t *testing.T) {
	for name, s := range strictSchemas(t) {
		_, err := s.Validate(json.RawMessage(`{"region":"a","region":"b",}`))
		if got := briefs(fieldErrors(t, err)); len(got) != 1 || got[0].Rule != "json" {
			t.Errorf("%s: errors %v, want one json error", name, got)
		}
	}
}

func TestAmbiguitiesAreBounded(t *testing.T) {
	args := "{" + strings.Repeat(`"a":1,`, 1000) + `"a":1}`
	for name, s := range strictSchemas(t) {
		_, err := s.Validate(json.RawMessage(args))
		if n := len(fieldErrors(t, err)); n != maxAmbiguities {
			t.Errorf("%s: %d errors, want %d", name, n, maxAmbiguities)
		}
	}
}

// TestBindThroughValuesMatchesExactly: Bind on a declared or raw schema
// decodes Values into the struct; a key kept in the Values (a raw schema
// keeps undeclared keys, an open Object every key) must not reach a field
// whose name differs in case, where the schema's rules never looked.
func TestBindThroughValuesMatchesExactly(t *testing.T) {
	raw := mustRaw(t, `{"type":"object","properties":{"region":{"type":"string"},
		"address":{"type":"object","properties":{"city":{"type":"string","maxLength":3}}}}}`)
	declared := mustNew(t, String("region"), Object("address", nil))
	tests := []struct {
		name string
		s    *Schema
		args string
		want brief
	}{
		{"raw nested", raw, `{"address":{"CITY":"a city much longer than three"}}`, brief{"address.CITY", "case", "city"}},
		{"raw in array", raw, `{"stops":[{"city":"x"},{"CITY":"y"}]}`, brief{"stops[1].CITY", "case", "city"}},
		{"raw in map", raw, `{"limits":{"k":{"City":"y"}}}`, brief{"limits[k].City", "case", "city"}},
		{"open object", declared, `{"address":{"City":"x"}}`, brief{"address.City", "case", "city"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p strictParams
			err := tt.s.Bind(json.RawMessage(tt.args), &p)
			if err == nil {
				t.Fatalf("Bind(%s) succeeded: %+v", tt.args, p)
			}
			if got := briefs(fieldErrors(t, err)); !slices.Contains(got, tt.want) {
				t.Errorf("errors %v, want %v", got, tt.want)
			}
		})
	}
	var p strictParams
	if err := raw.Bind(json.RawMessage(`{"region":"r","address":{"city":"abc"},"limits":{"K":{"city":"z"}},"extra":{"Any":1}}`), &p); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if p.Region != "r" || p.Address.City != "abc" || p.Limits["K"].City != "z" {
		t.Errorf("bound %+v", p)
	}
}

func TestValuesDecodeMatchesExactly(t *testing.T) {
	var dst struct {
		Name  string           `json:"name"`
		Inner *strictAddress   `json:"inner"`
		When  time.Time        `json:"when"`
		Any   any              `json:"any"`
		List  [2]strictAddress `json:"list"`
	}
	ok := Values{"name": "a", "inner": Values{"city": "c"}, "any": Values{"X": 1}, "list": []any{Values{"city": "d"}}, "when": "2026-01-02T03:04:05Z"}
	if err := ok.Decode(&dst); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if dst.Name != "a" || dst.Inner.City != "c" || dst.List[0].City != "d" || dst.When.Year() != 2026 {
		t.Errorf("decoded %+v", dst)
	}
	bad := Values{"NAME": "a", "inner": Values{"City": "c"}, "list": []any{Values{"CITY": "d"}}}
	got := briefs(fieldErrors(t, bad.Decode(&dst)))
	want := []brief{{"NAME", "case", "name"}, {"inner.City", "case", "city"}, {"list[0].CITY", "case", "city"}}
	if !slices.Equal(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	var m map[string]any
	if err := bad.Decode(&m); err != nil || m["NAME"] != "a" {
		t.Errorf("Decode into a map: %v, %v", m, err)
	}
}
