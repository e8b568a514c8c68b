package params

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
)

// embedded is the name validator is told for untagged embedded structs, so
// that it can be cut out of namespaces: encoding/json flattens such structs,
// and paths must name JSON keys.
const embedded = "\x00embedded"

// tagValidator is the one validator instance: it caches parsed tags and struct
// layouts, and is safe for concurrent use.
var tagValidator = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(validatorFieldName)
	// validator's own datetime needs a layout and panics on non-strings;
	// here a bare datetime means RFC 3339, as it does in the schema.
	if err := v.RegisterValidation("datetime", isDateTime); err != nil {
		panic(fmt.Sprintf("params: registering datetime: %v", err))
	}
	return v
}

func isDateTime(fl validator.FieldLevel) bool {
	f := fl.Field()
	if f.Kind() != reflect.String {
		return false
	}
	layout := fl.Param()
	if layout == "" {
		layout = time.RFC3339
	}
	_, err := time.Parse(layout, f.String())
	return err == nil
}

// validatorFieldName names struct fields by their JSON key in validator's
// namespaces.
func validatorFieldName(sf reflect.StructField) string {
	name, _ := jsonName(sf)
	if name != "" {
		return name
	}
	if sf.Anonymous && isStructOrPointer(sf.Type) {
		return embedded
	}
	return sf.Name
}

// checkValue runs tag rules on a single value. validator panics on rules
// that do not fit the value; that is reported as an error instead, so that
// no input can crash the server.
func checkValue(v any, tags string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rules %q cannot check this value: %v", tags, r)
		}
	}()
	return tagValidator.Var(v, tags)
}

// checkStruct runs validator on a struct, turning panics into errors.
func checkStruct(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validate tags: %v", r)
		}
	}()
	return tagValidator.Struct(v)
}

// trialRules makes validator parse tags and apply them to a sample value at
// compile time: unknown rules and unparsable parameters panic in validator,
// and a declaration must fail at registration rather than at call time.
func trialRules(sample any, tags string) error {
	if tags == "" {
		return nil
	}
	err := checkValue(sample, tags)
	var verrs validator.ValidationErrors
	if err == nil || errors.As(err, &verrs) {
		return nil
	}
	return err
}

// trialStruct has validator parse the validate tags of struct type t and
// apply them to a zero T, for the same reason as trialRules.
func trialStruct(t reflect.Type) error {
	err := checkStruct(reflect.New(t).Interface())
	var verrs validator.ValidationErrors
	if err == nil || errors.As(err, &verrs) {
		return nil
	}
	return err
}

// ruleErrors converts validator's errors on a single value at path.
func ruleErrors(err error, path string) []FieldError {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return []FieldError{{Path: path, Rule: "rules", Message: subject(path) + " could not be validated: " + err.Error()}}
	}
	out := make([]FieldError, 0, len(verrs))
	for _, fe := range verrs {
		out = append(out, fieldError(path, fe.Tag(), fe.Param(), kindOfReflect(fe.Kind())))
	}
	return out
}

// structErrors converts validator's errors on a struct of type t, whose
// namespaces start with the type's name.
func structErrors(err error, t reflect.Type) []FieldError {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return []FieldError{{Rule: "rules", Message: "arguments could not be validated: " + err.Error()}}
	}
	out := make([]FieldError, 0, len(verrs))
	root := t.Name() + "."
	for _, fe := range verrs {
		p := strings.TrimPrefix(fe.Namespace(), root)
		if strings.Contains(p, embedded) {
			p = strings.ReplaceAll(p, embedded+".", "")
		}
		out = append(out, fieldError(p, fe.Tag(), fe.Param(), kindOfReflect(fe.Kind())))
	}
	return out
}

// kindOfReflect gives the JSON kind a Go value of kind k encodes as, which
// decides how messages word size rules.
func kindOfReflect(k reflect.Kind) kind {
	switch k {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindInteger
	case reflect.Float32, reflect.Float64:
		return kindNumber
	case reflect.Slice, reflect.Array:
		return kindArray
	case reflect.Map, reflect.Struct:
		return kindObject
	}
	return kindAny
}

// lengthRule is one of validator's min, max and len rules on a string,
// which count runes: the commonest rules, checked without reflection.
type lengthRule struct {
	tag, param string
	n          int
}

// lengthRules returns tags as length rules when it holds nothing else
// (min=N, max=N or len=N, N in decimal), or nil.
func lengthRules(tags string) []lengthRule {
	if tags == "" {
		return nil
	}
	var rules []lengthRule
	for _, t := range strings.Split(tags, ",") {
		tag, param, ok := strings.Cut(t, "=")
		if !ok || (tag != "min" && tag != "max" && tag != "len") || param == "" || (len(param) > 1 && param[0] == '0') || len(param) > 9 {
			return nil
		}
		n := 0
		for _, d := range []byte(param) {
			if d < '0' || d > '9' {
				return nil
			}
			n = n*10 + int(d-'0')
		}
		rules = append(rules, lengthRule{tag: tag, param: param, n: n})
	}
	return rules
}

// failedLength returns the first rule s breaks, as validator, which stops
// at the first, would report it; or nil.
func failedLength(rules []lengthRule, s string) *lengthRule {
	n := utf8.RuneCountInString(s)
	for i := range rules {
		r := &rules[i]
		if (r.tag == "min" && n < r.n) || (r.tag == "max" && n > r.n) || (r.tag == "len" && n != r.n) {
			return r
		}
	}
	return nil
}
