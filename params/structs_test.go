package params

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

type Audit struct {
	RequestID string `json:"request_id" validate:"omitempty,uuid4" description:"Correlation id"`
}

type Meta struct {
	Source string `json:"source" default:"api"`
}

type Address struct {
	Street string `json:"street"`
	City   string `json:"city" validate:"required" title:"City"`
	Zip    string `json:"zip,omitempty" validate:"omitempty,len=5,numeric" default:"00000"`
}

type LineItem struct {
	SKU string `json:"sku" validate:"required,alphanum,max=12"`
	Qty int    `json:"qty" validate:"gte=1" default:"1"`
}

type Order struct {
	Audit
	*Meta
	Customer string            `json:"customer" validate:"required,min=2,max=64" description:"Customer name" header:"X-Customer"`
	Priority uint8             `json:"priority" validate:"max=5" default:"3"`
	Discount *float64          `json:"discount,omitempty" validate:"omitempty,gte=0,lt=1"`
	Express  bool              `json:"express"`
	Tags     []string          `json:"tags" validate:"max=3,dive,min=1,max=10"`
	Ship     Address           `json:"ship"`
	Bill     *Address          `json:"bill"`
	Items    []LineItem        `json:"items" validate:"min=1,dive"`
	Due      time.Time         `json:"due"`
	Limits   map[string]int    `json:"limits" validate:"dive,gte=0"`
	Extra    json.RawMessage   `json:"extra"`
	Any      any               `json:"any"`
	Channel  string            `json:"channel" validate:"omitempty,oneof=web 'phone call'"`
	Codes    [2]int16          `json:"codes"`
	Blob     []byte            `json:"blob"`
	IP       net.IP            `json:"ip"`
	Count    int64             `json:"count,string"`
	Notes    map[string]string `json:"-"`
	//lint:ignore U1000 an unexported field, which the schema must leave out
	internal int
}

const orderSchema = `{"type":"object","properties":{` +
	`"request_id":{"type":"string","description":"Correlation id","format":"uuid"},` +
	`"source":{"type":"string","default":"api"},` +
	`"customer":{"type":"string","description":"Customer name","minLength":2,"maxLength":64,"x-mcp-header":"X-Customer"},` +
	`"priority":{"type":"integer","minimum":0,"maximum":5,"default":3},` +
	`"discount":{"type":"number","minimum":0,"exclusiveMaximum":1},` +
	`"express":{"type":"boolean"},` +
	`"tags":{"type":"array","maxItems":3,"items":{"type":"string","minLength":1,"maxLength":10}},` +
	`"ship":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string","title":"City"},"zip":{"type":"string","minLength":5,"maxLength":5,"default":"00000"}},"required":["city"]},` +
	`"bill":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string","title":"City"},"zip":{"type":"string","minLength":5,"maxLength":5,"default":"00000"}},"required":["city"]},` +
	`"items":{"type":"array","minItems":1,"items":{"type":"object","properties":{"sku":{"type":"string","maxLength":12},"qty":{"type":"integer","minimum":1,"default":1}},"required":["sku"]}},` +
	`"due":{"type":"string","format":"date-time"},` +
	`"limits":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},` +
	`"extra":{},` +
	`"any":{},` +
	`"channel":{"type":"string","enum":["web","phone call"]},` +
	`"codes":{"type":"array","maxItems":2,"items":{"type":"integer"}},` +
	`"blob":{"type":"string","contentEncoding":"base64"},` +
	`"ip":{"type":"string"},` +
	`"count":{"type":"string"}` +
	`},"required":["customer"]}`

func TestForSchema(t *testing.T) {
	s, err := For[Order]()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.JSON()); got != orderSchema {
		t.Errorf("schema\n got %s\nwant %s", got, orderSchema)
	}
	same, err := ForType(reflect.TypeFor[Order]())
	if err != nil {
		t.Fatal(err)
	}
	if string(same.JSON()) != orderSchema {
		t.Error("ForType and For differ")
	}

	fields := s.Fields()
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	wantNames := "request_id source customer priority discount express tags ship bill items due limits extra any channel codes blob ip count"
	if got := strings.Join(names, " "); got != wantNames {
		t.Errorf("Fields names = %s", got)
	}
	if f := fields[2]; f.Header != "X-Customer" || !f.Required || f.Description != "Customer name" || f.Type != "string" {
		t.Errorf("customer info = %+v", f)
	}
	if f := fields[14]; !reflect.DeepEqual(f.Enum, []string{"web", "phone call"}) {
		t.Errorf("channel info = %+v", f)
	}
	if f := fields[12]; f.Type != "" {
		t.Errorf("extra info = %+v", f)
	}
}

func TestForSmallSchemas(t *testing.T) {
	type Empty struct{}
	type Unsigned struct {
		N uint `json:"n" validate:"min=2"`
	}
	type Pointers struct {
		P **int `json:"p" validate:"required"`
	}
	type Untagged struct {
		Name string
		Age  int `json:",omitempty"`
	}
	type Required struct {
		Flag bool `json:"flag" validate:"required"`
	}
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"empty", reflect.TypeFor[Empty](), `{"type":"object"}`},
		{"unsigned min", reflect.TypeFor[Unsigned](), `{"type":"object","properties":{"n":{"type":"integer","minimum":2}}}`},
		{"pointer required", reflect.TypeFor[Pointers](), `{"type":"object","properties":{"p":{"type":"integer"}},"required":["p"]}`},
		{"go names", reflect.TypeFor[Untagged](), `{"type":"object","properties":{"Name":{"type":"string"},"Age":{"type":"integer"}}}`},
		{"required bool", reflect.TypeFor[Required](), `{"type":"object","properties":{"flag":{"type":"boolean"}},"required":["flag"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ForType(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(s.JSON()); got != tt.want {
				t.Errorf("schema\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestEmbeddingFollowsEncodingJSON(t *testing.T) {
	type Inner struct {
		Name string
		C    string
		D    string
	}
	type Other struct {
		C string
		X string `json:"D"`
	}
	type Tagged struct {
		D string `json:"d"`
	}
	type Outer struct {
		Inner
		Other
		Tagged `json:"tagged"`
		Name   int // shallower: hides Inner.Name
	}
	s, err := For[Outer]()
	if err != nil {
		t.Fatal(err)
	}
	// C is ambiguous at one depth and vanishes; the tagged D beats the
	// untagged one; a tagged embedded struct is not flattened.
	want := `{"type":"object","properties":{"D":{"type":"string"},"tagged":{"type":"object","properties":{"d":{"type":"string"}}},"Name":{"type":"integer"}}}`
	if got := string(s.JSON()); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	data, _ := json.Marshal(Outer{})
	if string(data) != `{"D":"","tagged":{"d":""},"Name":0}` {
		t.Errorf("the test's premise is wrong: encoding/json gives %s", data)
	}
}

func TestForErrors(t *testing.T) {
	type Node struct {
		Children []Node `json:"children"`
	}
	type BadTag struct {
		A string `json:"a" validate:"bogus"`
	}
	type BadParam struct {
		A string `json:"a" validate:"min=x"`
	}
	type BadDefault struct {
		N int `json:"n" default:"five"`
	}
	type FractionDefault struct {
		N int `json:"n" default:"1.5"`
	}
	type RangeDefault struct {
		N int8 `json:"n" default:"300"`
	}
	type TimeDefault struct {
		T time.Time `json:"t" default:"yesterday"`
	}
	type RequiredDefault struct {
		N int `json:"n" validate:"required" default:"1"`
	}
	type Chan struct {
		C chan int `json:"c"`
	}
	type MapKey struct {
		M map[[2]int]string `json:"m"`
	}
	type HeaderNested struct {
		In struct {
			A string `json:"a" header:"X-A"`
		} `json:"in"`
	}
	type HeaderArray struct {
		A []string `json:"a" header:"X-A"`
	}
	type HeaderTwice struct {
		A string `json:"a" header:"X-A"`
		B string `json:"b" header:"x-a"`
	}
	type NoDive struct {
		Items []LineItem `json:"items"`
	}
	type DiveScalar struct {
		A string `json:"a" validate:"dive"`
	}
	type WrongKindRule struct {
		B bool `json:"b" validate:"max=1"`
	}
	type NestedBad struct {
		In *BadTag `json:"in"`
	}
	tests := []struct {
		name string
		typ  reflect.Type
		want []string
	}{
		{"not a struct", reflect.TypeFor[int](), []string{"int is not a struct type"}},
		{"pointer to struct", reflect.TypeFor[*Order](), []string{"is not a struct type"}},
		{"nil", nil, []string{"not a struct type"}},
		{"recursive", reflect.TypeFor[Node](), []string{`field "children[]"`, "recursive"}},
		{"unknown validate tag", reflect.TypeFor[BadTag](), []string{"BadTag", "bogus"}},
		{"bad validate param", reflect.TypeFor[BadParam](), []string{`field "a"`, "min=x"}},
		{"bad default", reflect.TypeFor[BadDefault](), []string{`field "n"`, "five"}},
		{"fractional default", reflect.TypeFor[FractionDefault](), []string{`field "n"`, "must be an integer"}},
		{"default out of range", reflect.TypeFor[RangeDefault](), []string{`field "n"`, "127 or less"}},
		{"bad time default", reflect.TypeFor[TimeDefault](), []string{`field "t"`, "RFC 3339"}},
		{"required with default", reflect.TypeFor[RequiredDefault](), []string{`field "n"`, "cannot have a default"}},
		{"unsupported type", reflect.TypeFor[Chan](), []string{`field "c"`, "not supported"}},
		{"unsupported map key", reflect.TypeFor[MapKey](), []string{`field "m"`, "map key"}},
		{"header nested", reflect.TypeFor[HeaderNested](), []string{`field "in.a"`, "top-level"}},
		{"header on array", reflect.TypeFor[HeaderArray](), []string{`field "a"`, "Header is allowed only on string"}},
		{"header twice", reflect.TypeFor[HeaderTwice](), []string{`field "b"`, `already used by field "a"`}},
		{"missing dive", reflect.TypeFor[NoDive](), []string{`field "items"`, "dive"}},
		{"dive on scalar", reflect.TypeFor[DiveScalar](), []string{`field "a"`, "dive applies to slices"}},
		{"rule on wrong kind", reflect.TypeFor[WrongKindRule](), []string{`field "b"`, "booleans"}},
		{"nested bad tag", reflect.TypeFor[NestedBad](), []string{"BadTag", "bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ForType(tt.typ)
			if err == nil {
				t.Fatalf("ForType succeeded: %s", s.JSON())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func mustFor[T any](t testing.TB) *Schema {
	t.Helper()
	s, err := For[T]()
	if err != nil {
		t.Fatalf("For: %v", err)
	}
	return s
}

func TestBindStruct(t *testing.T) {
	s := mustFor[Order](t)
	args := `{
		"request_id": "0b8e7ff4-4f5b-4c8a-9d4e-0a4d4f0e7b1c",
		"customer": "Ada",
		"discount": 0.25,
		"tags": ["a"],
		"ship": {"city": "Paris"},
		"bill": {"city": "Lyon", "zip": "69001"},
		"items": [{"sku": "A1"}, {"sku": "B2", "qty": 4}, {"sku": "C3", "qty": null}],
		"due": "2030-01-02T03:04:05Z",
		"limits": {"x": 1},
		"extra": {"keep": [1.0, "exact"]},
		"codes": [7],
		"blob": "aGk=",
		"ip": "10.0.0.1",
		"count": "42",
		"ignored": "yes"
	}`
	var o Order
	o.Notes = map[string]string{"stale": "value"} // Bind resets dst
	if err := s.Bind(json.RawMessage(args), &o); err != nil {
		t.Fatal(err)
	}
	discount := 0.25
	want := Order{
		Audit:    Audit{RequestID: "0b8e7ff4-4f5b-4c8a-9d4e-0a4d4f0e7b1c"},
		Meta:     &Meta{Source: "api"}, // a default is a value, even in an embedded pointer
		Customer: "Ada",
		Priority: 3,
		Discount: &discount,
		Tags:     []string{"a"},
		Ship:     Address{City: "Paris", Zip: "00000"},
		Bill:     &Address{City: "Lyon", Zip: "69001"},
		Items:    []LineItem{{SKU: "A1", Qty: 1}, {SKU: "B2", Qty: 4}, {SKU: "C3", Qty: 1}},
		Due:      time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC),
		Limits:   map[string]int{"x": 1},
		Extra:    json.RawMessage(`{"keep":[1.0,"exact"]}`),
		Codes:    [2]int16{7, 0},
		Blob:     []byte("hi"),
		IP:       net.ParseIP("10.0.0.1"),
		Count:    42,
	}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("Bind\n got %+v\nwant %+v", o, want)
	}
}

func TestBindStructDefaults(t *testing.T) {
	type Inner struct {
		Level int `json:"level" default:"2"`
	}
	type Params struct {
		*Meta
		Name    string            `json:"name" default:"anon"`
		Ratio   float32           `json:"ratio" default:"0.5"`
		On      bool              `json:"on" default:"true"`
		When    time.Time         `json:"when" default:"2020-01-01T00:00:00Z"`
		Ptr     *int              `json:"ptr" default:"7"`
		List    []string          `json:"list" default:"[\"x\",\"y\"]"`
		Map     map[string]int    `json:"map" default:"{\"a\":1}"`
		Inner   Inner             `json:"inner"`
		PInner  *Inner            `json:"pinner"`
		Inners  []Inner           `json:"inners"`
		ByName  map[string]*Inner `json:"by_name"`
		Counted int               `json:"counted,string" default:"9"`
		Wrapped []struct {
			In Inner `json:"in"`
		} `json:"wrapped"`
	}
	s := mustFor[Params](t)
	tests := []struct {
		args  string
		check func(p Params) bool
	}{
		{`{}`, func(p Params) bool {
			return p.Meta != nil && p.Source == "api" && p.Name == "anon" && p.Ratio == 0.5 && p.On &&
				p.When.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) &&
				p.Ptr != nil && *p.Ptr == 7 && reflect.DeepEqual(p.List, []string{"x", "y"}) &&
				reflect.DeepEqual(p.Map, map[string]int{"a": 1}) && p.Inner.Level == 2 &&
				p.PInner == nil && p.Inners == nil && p.Counted == 9
		}},
		{`{"name":null,"on":false,"ptr":null,"list":[],"inner":{"level":5}}`, func(p Params) bool {
			return p.Name == "anon" && !p.On && p.Ptr != nil && *p.Ptr == 7 && len(p.List) == 0 && p.List != nil && p.Inner.Level == 5
		}},
		{`{"source":"cli","pinner":{},"inners":[{},{"level":0}],"by_name":{"k":{}}}`, func(p Params) bool {
			return p.Meta != nil && p.Source == "cli" && p.PInner != nil && p.PInner.Level == 2 &&
				reflect.DeepEqual(p.Inners, []Inner{{Level: 2}, {Level: 0}}) && p.ByName["k"].Level == 2
		}},
		{`{"pinner":{}}`, func(p Params) bool { return p.Source == "api" && p.PInner.Level == 2 }},
		// A struct value inside a slice element gets its defaults as the
		// top-level one does.
		{`{"wrapped":[{},{"in":null},{"in":{"level":3}}]}`, func(p Params) bool {
			return len(p.Wrapped) == 3 && p.Wrapped[0].In.Level == 2 && p.Wrapped[1].In.Level == 2 && p.Wrapped[2].In.Level == 3
		}},
	}
	for _, tt := range tests {
		var p Params
		if err := s.Bind(json.RawMessage(tt.args), &p); err != nil {
			t.Errorf("Bind(%s): %v", tt.args, err)
			continue
		}
		if !tt.check(p) {
			t.Errorf("Bind(%s) = %+v", tt.args, p)
		}
	}

	// Defaults are not shared between calls.
	var a, b Params
	_ = s.Bind(nil, &a)
	a.List[0] = "changed"
	a.Map["a"] = 100
	*a.Ptr = 100
	_ = s.Bind(nil, &b)
	if b.List[0] != "x" || b.Map["a"] != 1 || *b.Ptr != 7 {
		t.Errorf("defaults shared between calls: %+v", b)
	}
}

func TestBindStructErrors(t *testing.T) {
	s := mustFor[Order](t)
	args := `{
		"request_id": "not-a-uuid",
		"customer": 5,
		"priority": 300,
		"discount": 1,
		"tags": ["", "way too long!", 3],
		"ship": {},
		"items": [{"sku": "a-1", "qty": 0}, {"qty": "x"}, {"sku": "ok", "qty": 1.5}],
		"due": "tomorrow",
		"limits": {"a": -1, "b": "x"},
		"channel": "fax",
		"codes": [1, 2, 3],
		"count": 42
	}`
	var o Order
	err := s.Bind(json.RawMessage(args), &o)
	got := briefs(fieldErrors(t, err))
	want := []brief{
		// Type errors, found by the checker in declaration order.
		{"customer", "type", "string"},
		{"priority", "max", "255"},
		{"tags[2]", "type", "string"},
		{"items[1].qty", "type", "integer"},
		{"items[2].qty", "type", "integer"},
		{"due", "datetime", ""},
		{"limits[b]", "type", "integer"},
		{"codes", "max", "2"},
		{"count", "type", "string"},
		// Then validator, in struct order, skipping fields already reported.
		{"request_id", "uuid4", ""},
		{"discount", "lt", "1"},
		{"tags[0]", "min", "1"},
		{"tags[1]", "max", "10"},
		{"ship.city", "required", ""},
		{"items[0].sku", "alphanum", ""},
		{"items[0].qty", "gte", "1"},
		{"items[1].sku", "required", ""},
		{"limits[a]", "gte", "0"},
		{"channel", "oneof", "web 'phone call'"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n got %v\nwant %v", got, want)
	}
	if !strings.Contains(err.Error(), `"channel" must be one of: "web", "phone call"`) {
		t.Errorf("message: %v", err)
	}

	// Validate reports the same for struct schemas.
	_, verr := s.Validate(json.RawMessage(args))
	if verr == nil || verr.Error() != err.Error() {
		t.Errorf("Validate error\n got %v\nwant %v", verr, err)
	}
}

func TestBindStructStrictTypes(t *testing.T) {
	type P struct {
		I int     `json:"i"`
		F float64 `json:"f"`
		S string  `json:"s"`
		B bool    `json:"b"`
		U uint    `json:"u"`
	}
	s := mustFor[P](t)
	tests := []struct {
		args string
		want brief
	}{
		{`{"i":"5"}`, brief{"i", "type", "integer"}},
		{`{"i":1.5}`, brief{"i", "type", "integer"}},
		{`{"i":2.0}`, brief{"i", "type", "integer"}}, // encoding/json cannot decode it into an int
		{`{"i":1e400}`, brief{"i", "max", "9223372036854775807"}},
		{`{"f":"1"}`, brief{"f", "type", "number"}},
		{`{"f":1e400}`, brief{"f", "range", ""}},
		{`{"s":1}`, brief{"s", "type", "string"}},
		{`{"b":"true"}`, brief{"b", "type", "boolean"}},
		{`{"u":-1}`, brief{"u", "min", "0"}},
	}
	for _, tt := range tests {
		var p P
		err := s.Bind(json.RawMessage(tt.args), &p)
		if got := briefs(fieldErrors(t, err)); !reflect.DeepEqual(got, []brief{tt.want}) {
			t.Errorf("Bind(%s) errors = %v, want %v", tt.args, got, tt.want)
		}
	}
	var p P
	if err := s.Bind(json.RawMessage(`{"u":18446744073709551615,"f":2}`), &p); err != nil || p.U != 18446744073709551615 || p.F != 2 {
		t.Errorf("Bind = %+v, %v", p, err)
	}
}

func TestBindStructReportsPastDecodeErrors(t *testing.T) {
	// encoding/json gives up at the first failing UnmarshalJSON (here
	// time.Time's); every later field must still be checked.
	type P struct {
		When time.Time `json:"when"`
		N    int       `json:"n"`
		S    string    `json:"s" validate:"required"`
		T    string    `json:"t" validate:"max=2"`
	}
	s := mustFor[P](t)
	var p P
	err := s.Bind(json.RawMessage(`{"when":"noon","n":"x","s":"ok","t":"long"}`), &p)
	want := []brief{{"when", "datetime", ""}, {"n", "type", "integer"}, {"t", "max", "2"}}
	if got := briefs(fieldErrors(t, err)); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
}

func TestBindStructArguments(t *testing.T) {
	type P struct {
		N int `json:"n" default:"1"`
	}
	s := mustFor[P](t)
	for _, args := range []string{``, `null`, ` {} `, `{"other":1}`} {
		var p P
		if err := s.Bind(json.RawMessage(args), &p); err != nil || p.N != 1 {
			t.Errorf("Bind(%q) = %+v, %v", args, p, err)
		}
	}
	for _, args := range []string{`[]`, `"x"`, `{`, `{"n":1}x`, `nul`} {
		var p P
		err := s.Bind(json.RawMessage(args), &p)
		if fes := fieldErrors(t, err); len(fes) != 1 || fes[0].Path != "" {
			t.Errorf("Bind(%q) errors = %+v", args, fes)
		}
	}
}

func TestBindStructIntoOtherTypes(t *testing.T) {
	type P struct {
		Name string `json:"name" validate:"required"`
		N    int    `json:"n" default:"4"`
	}
	s := mustFor[P](t)
	var m map[string]any
	if err := s.Bind(json.RawMessage(`{"name":"x"}`), &m); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, map[string]any{"name": "x", "n": float64(4)}) {
		t.Errorf("Bind into map = %v", m)
	}
	if err := s.Bind(json.RawMessage(`{}`), &m); err == nil {
		t.Error("Bind into map skipped validation")
	}
	if err := s.Bind(json.RawMessage(`{"name":"x"}`), P{}); err == nil {
		t.Error("Bind into a non-pointer succeeded")
	}
	var nilP *P
	if err := s.Bind(json.RawMessage(`{"name":"x"}`), nilP); err == nil {
		t.Error("Bind into a nil pointer succeeded")
	}
}

func TestStructValidateValues(t *testing.T) {
	s := mustFor[Order](t)
	v, err := s.Validate(json.RawMessage(`{"customer":"Ada","items":[{"sku":"A1"}],"ship":{"city":"X"},"limits":{"a":2},"extra":{"k":1.5},"bogus":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Values{
		"source":   "api",
		"customer": "Ada",
		"priority": int64(3),
		"items":    []any{Values{"sku": "A1", "qty": int64(1)}},
		"ship":     Values{"city": "X", "zip": "00000"},
		"limits":   Values{"a": int64(2)},
		"extra":    Values{"k": 1.5},
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("Values\n got %#v\nwant %#v", v, want)
	}
}
