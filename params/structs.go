package params

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// For compiles the parameters described by struct type T. See the package
// documentation for the struct tags and field types it understands.
func For[T any]() (*Schema, error) {
	return ForType(reflect.TypeFor[T]())
}

// ForType is the non-generic form of [For].
func ForType(t reflect.Type) (*Schema, error) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("params: %v is not a struct type", t)
	}
	b := &structBuilder{visiting: map[reflect.Type]bool{}}
	root, err := b.object(t, "", place{inline: true}, true)
	if err != nil {
		return nil, err
	}
	infos := make([]FieldInfo, len(root.n.fields))
	headers := map[string]string{}
	for i, f := range root.n.fields {
		kw := root.kw.Properties[i].schema
		if h := kw.Header; h != "" {
			key := strings.ToLower(h)
			if other, dup := headers[key]; dup {
				return nil, fmt.Errorf("params: field %q: header %q is already used by field %q", f.name, h, other)
			}
			headers[key] = f.name
		}
		infos[i] = fieldInfo(f, kw)
	}
	data, err := json.Marshal(root.kw)
	if err != nil {
		return nil, fmt.Errorf("params: encoding schema of %v: %w", t, err)
	}
	tmpl := reflect.New(t).Elem()
	for _, p := range b.presets {
		if err := json.Unmarshal(p.data, tmpl.FieldByIndex(p.index).Addr().Interface()); err != nil {
			return nil, fmt.Errorf("params: %v: setting default %s: %w", t, p.data, err)
		}
	}
	sp := &structParams{typ: t, root: root.n, template: tmpl, deep: b.deep}
	return &Schema{json: data, fields: infos, strct: sp}, nil
}

// structParams is the compiled form of a parameter struct.
type structParams struct {
	typ  reflect.Type
	root *node
	// template is a T holding the defaults that can be set before decoding:
	// scalars reached through value structs only. Copying it into dst and
	// decoding on top leaves those defaults wherever a key is absent.
	template reflect.Value
	// deep is set when some default sits behind a pointer, slice or map, or
	// is itself composite; those are inserted into the decoded arguments,
	// which are then encoded again.
	deep bool
}

// bind decodes args into dst, a non-nil *T, and validates it.
func (sp *structParams) bind(args []byte, dst reflect.Value) error {
	data := trimSpace(args)
	switch {
	case len(data) == 0 || string(data) == "null":
		data = []byte("{}")
	case data[0] != '{':
		_, err := decodeArgs(data) // words the problem precisely
		return err
	}

	// With defaults behind pointers, slices or maps, the arguments are
	// decoded once more to insert them, and type errors are found on the
	// way. Otherwise encoding/json decodes the arguments directly, and the
	// checker runs only if that fails.
	//
	// The keys are checked once the arguments are known to be JSON: by
	// prepare, or by encoding/json, which checks all of its input before
	// it decodes any of it.
	orig := data
	var typeErrs []FieldError
	if sp.deep {
		var err error
		if typeErrs, data, err = sp.prepare(data, true); err != nil {
			return err
		}
		if errs := ambiguities(sp.root, orig); errs != nil {
			return &ValidationError{Fields: errs}
		}
	}
	dst.Elem().Set(sp.template)
	err := json.Unmarshal(data, dst.Interface())
	if !sp.deep {
		if err != nil && isSyntaxError(err) {
			return invalidJSON(err)
		}
		if errs := ambiguities(sp.root, orig); errs != nil {
			return &ValidationError{Fields: errs}
		}
	}
	if err != nil && !sp.deep {
		// encoding/json stops at some errors and reports only its first;
		// the checker finds all of them, with array indexes in their
		// paths, and nulls them out so that the rest can be decoded and
		// validated.
		var perr error
		if typeErrs, data, perr = sp.prepare(data, false); perr != nil {
			return perr
		}
		if len(typeErrs) > 0 {
			dst.Elem().Set(sp.template)
			err = json.Unmarshal(data, dst.Interface())
		}
	}
	if err != nil {
		// Something the checker cannot foresee, such as a custom
		// UnmarshalJSON failing: dst is incomplete, so validator's
		// opinion of it would mislead.
		return &ValidationError{Fields: append(typeErrs, unmarshalError(err))}
	}

	errs := typeErrs
	if err := checkStruct(dst.Interface()); err != nil {
		for _, fe := range structErrors(err, sp.typ) {
			// A field of the wrong type also fails its rules as a zero
			// value; one error about it is enough.
			if !coveredBy(fe.Path, typeErrs) {
				errs = append(errs, fe)
			}
		}
	}
	if len(errs) > 0 {
		return &ValidationError{Fields: errs}
	}
	return nil
}

func isSyntaxError(err error) bool {
	var syntax *json.SyntaxError
	return errors.As(err, &syntax)
}

// prepare decodes the arguments object, checks its types, replaces values
// of the wrong type with null, inserts defaults if fill is set, and encodes
// the result again.
func (sp *structParams) prepare(data []byte, fill bool) ([]FieldError, []byte, error) {
	obj, err := decodeArgs(data)
	if err != nil {
		return nil, nil, err
	}
	c := checker{fill: fill, scrub: true}
	c.fields(sp.root, obj)
	if data, err = json.Marshal(obj); err != nil {
		return nil, nil, fmt.Errorf("params: encoding arguments again: %w", err)
	}
	return c.errs, data, nil
}

// validate binds args into a fresh T for the checks, then returns the
// arguments as Values.
func (sp *structParams) validate(args []byte) (Values, error) {
	if err := sp.bind(args, reflect.New(sp.typ)); err != nil {
		return nil, err
	}
	obj, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	c := checker{fill: true, normalize: true}
	c.fields(sp.root, obj)
	return Values(obj), nil
}

func coveredBy(p string, errs []FieldError) bool {
	for _, e := range errs {
		if p == e.Path || strings.HasPrefix(p, e.Path+".") || strings.HasPrefix(p, e.Path+"[") {
			return true
		}
	}
	return false
}

// unmarshalError converts an encoding/json error the checker did not
// anticipate, such as one from a custom UnmarshalJSON.
func unmarshalError(err error) FieldError {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Type != nil {
		return FieldError{
			Path:    ute.Field,
			Rule:    "type",
			Param:   kindOfReflect(ute.Type.Kind()).String(),
			Message: subject(ute.Field) + " must be " + kindOfReflect(ute.Type.Kind()).article() + ", got " + ute.Value,
		}
	}
	return FieldError{Rule: "json", Message: "arguments could not be decoded: " + err.Error()}
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// implements reports whether t or *t implements iface, which is what
// encoding/json checks.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// structBuilder compiles a struct type.
type structBuilder struct {
	visiting map[reflect.Type]bool // structs being compiled, to reject recursion
	presets  []preset
	deep     bool
}

// preset is a default to set in the template.
type preset struct {
	index []int
	data  []byte
}

// place locates a value relative to the root struct.
type place struct {
	inline bool  // reached through value structs only, so presettable
	index  []int // field index path from the root, when inline
}

// built is a compiled Go type.
type built struct {
	n     *node
	kw    *keywords
	rules bool // validate tags occur in it, so validator has work there
}

// object compiles struct type t found at path at.
func (b *structBuilder) object(t reflect.Type, at string, pl place, top bool) (built, error) {
	if b.visiting[t] {
		return built{}, fmt.Errorf("params: field %q: recursive type %v is not supported", at, t)
	}
	b.visiting[t] = true
	defer delete(b.visiting, t)
	out := built{
		n:  &node{kind: kindObject, goKind: reflect.Struct},
		kw: &keywords{Type: "object"},
	}
	for _, f := range jsonFields(t) {
		fat := f.name
		if at != "" {
			fat = at + "." + f.name
		}
		fpl := place{inline: pl.inline && !f.viaPointer}
		if fpl.inline {
			fpl.index = append(slices.Clone(pl.index), f.index...)
		}
		fb, required, err := b.field(f, fat, fpl, top)
		if err != nil {
			return built{}, err
		}
		out.n.fields = append(out.n.fields, fb.n)
		out.kw.Properties = append(out.kw.Properties, property{name: f.name, schema: fb.kw})
		if required {
			out.kw.Required = append(out.kw.Required, f.name)
		}
		out.rules = out.rules || fb.rules
	}
	out.n.indexNames()
	// Last, so that the checks above report problems with field names.
	if err := trialStruct(t); err != nil {
		return built{}, fmt.Errorf("params: %v: %w", t, err)
	}
	return out, nil
}

// field compiles one struct field.
func (b *structBuilder) field(f structField, at string, pl place, top bool) (built, bool, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("params: field %q: %s", at, fmt.Sprintf(format, args...))
	}
	tag := f.sf.Tag
	vtag := tag.Get("validate")
	if vtag == "-" {
		vtag = "" // validator skips the field
	}
	rs, err := parseRules(vtag)
	if err != nil {
		return built{}, false, fail("validate tag: %v", err)
	}
	own, elems, dived := cutDive(rs)
	required := hasRule(own, "required")
	fb, err := b.typ(f.sf.Type, at, pl, own, elems, dived, f.asString)
	if err != nil {
		return built{}, false, err
	}
	if f.sf.Type.Kind() == reflect.Struct && fb.n.kind == kindObject && hasDefaults(fb.n) {
		fb.n.fillEmpty = true
	}
	fb.n.name = f.name
	fb.n.required = required
	fb.kw.Title = tag.Get("title")
	fb.kw.Description = tag.Get("description")
	fb.rules = fb.rules || len(rs) > 0

	if expr := tag.Get("pattern"); expr != "" {
		if err := compilePattern(fb.n, fb.kw, expr); err != nil {
			return built{}, false, fail("pattern tag: %v", err)
		}
		b.deep = true // validator has no regexp rule: the checker matches it
	}
	if h := tag.Get("header"); h != "" {
		if err := checkHeader(h, fb.n.kind, top); err != nil {
			return built{}, false, fail("%v", err)
		}
		fb.kw.Header = h
	}
	if def, ok := tag.Lookup("default"); ok {
		if required {
			return built{}, false, fail("a required field cannot have a default")
		}
		data := []byte(def)
		if fb.n.kind == kindString {
			data, _ = json.Marshal(def)
		}
		v, raw, err := checkDefault(fb.n, data, false)
		if err != nil {
			return built{}, false, fail("%v", err)
		}
		fb.n.hasDefault, fb.n.def, fb.kw.Default = true, v, raw
		if pl.inline && !f.asString && presettable(f.sf.Type) {
			b.presets = append(b.presets, preset{index: pl.index, data: data})
		} else {
			b.deep = true
		}
	}
	return fb, required, nil
}

// hasDefaults reports whether an object node's fields, or the fields of
// struct values within it, have defaults.
func hasDefaults(n *node) bool {
	for _, f := range n.fields {
		if f.hasDefault || f.fillEmpty {
			return true
		}
	}
	return false
}

// presettable reports whether a default of type t can live in the template:
// copying the template must not share anything mutable.
func presettable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return !implements(t, jsonUnmarshalerType) && !implements(t, textUnmarshalerType)
	}
	return t == timeType
}

// typ compiles Go type t; own are the rules on the value, elems those after
// dive.
func (b *structBuilder) typ(t reflect.Type, at string, pl place, own, elems []rule, dived, asString bool) (built, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("params: field %q: %s", at, fmt.Sprintf(format, args...))
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		pl = place{} // behind a pointer: nothing to preset
	}
	out := built{n: &node{goKind: t.Kind()}, kw: &keywords{}}
	n, kw := out.n, out.kw
	ruleKind := kindAny // the kind validator sees, when the schema can say the same
	var elem reflect.Type
	switch {
	case t == timeType:
		n.kind, n.isTime, kw.Format = kindString, true, "date-time"
	case t == rawMessageType || implements(t, jsonUnmarshalerType):
		n.kind = kindAny
	case implements(t, textUnmarshalerType) || asString:
		n.kind = kindString
	default:
		switch t.Kind() {
		case reflect.String:
			n.kind, ruleKind = kindString, kindString
		case reflect.Bool:
			n.kind, ruleKind = kindBoolean, kindBoolean
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n.kind, ruleKind = kindInteger, kindInteger
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n.kind, ruleKind = kindInteger, kindInteger
			kw.Minimum = "0"
		case reflect.Float32, reflect.Float64:
			n.kind, ruleKind = kindNumber, kindNumber
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonUnmarshalerType) && !implements(t.Elem(), textUnmarshalerType) {
				// encoding/json writes []byte as base64.
				n.kind, kw.ContentEncoding = kindString, "base64"
				break
			}
			n.kind, ruleKind, elem = kindArray, kindArray, t.Elem()
		case reflect.Array:
			n.kind, ruleKind, elem = kindArray, kindArray, t.Elem()
			n.arrayLen = t.Len()
			atMost(&kw.MaxItems, int64(t.Len()))
		case reflect.Map:
			switch k := t.Key(); {
			case k.Kind() == reflect.String, implements(k, textUnmarshalerType):
			case kindOfReflect(k.Kind()) == kindInteger:
			default:
				return built{}, fail("map key type %v cannot be a JSON object key", k)
			}
			n.kind, ruleKind, elem = kindObject, kindObject, t.Elem()
		case reflect.Struct:
			nested, err := b.object(t, at, pl, false)
			if err != nil {
				return built{}, err
			}
			out = nested
			n, kw = out.n, out.kw
		case reflect.Interface:
			n.kind = kindAny
		default:
			return built{}, fail("type %v is not supported", t)
		}
	}
	kw.Type = n.kind.String()
	if ruleKind != kindAny {
		if _, err := applyRules(kw, ruleKind, own); err != nil {
			return built{}, fail("validate tag: %v", err)
		}
	}
	if dived && elem == nil {
		return built{}, fail("dive applies to slices, arrays and maps, not to %v", t)
	}
	if elem == nil {
		return out, nil
	}

	eOwn, eElems, eDived := cutDive(skipKeys(elems))
	eb, err := b.typ(elem, at+"[]", place{}, eOwn, eElems, eDived, false)
	if err != nil {
		return built{}, err
	}
	if !dived && eb.rules && isStructOrPointer(elem) {
		return built{}, fail("validate tags of %v are enforced only with dive; add dive to the field's validate tag", elem)
	}
	out.rules = eb.rules || len(elems) > 0
	if n.kind == kindObject {
		n.values, kw.AdditionalProperties = eb.n, eb.kw
	} else {
		n.items, kw.Items = eb.n, eb.kw
	}
	return out, nil
}
