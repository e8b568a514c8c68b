package params

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// rule is one validator tag, such as "min=3".
type rule struct {
	name  string
	param string // decoded as validator decodes it
	raw   string // as written, to rebuild a tag string validator parses the same way
}

// parseRules splits a validator tag string into rules.
func parseRules(tags string) ([]rule, error) {
	if tags == "" {
		return nil, nil
	}
	parts := strings.Split(tags, ",")
	rs := make([]rule, 0, len(parts))
	for _, p := range parts {
		name, param, _ := strings.Cut(p, "=")
		if name == "" {
			return nil, fmt.Errorf("empty rule in %q", tags)
		}
		// validator lets params spell ',' and '|' as 0x2C and 0x7C.
		param = strings.ReplaceAll(strings.ReplaceAll(param, "0x2C", ","), "0x7C", "|")
		rs = append(rs, rule{name: name, param: param, raw: p})
	}
	return rs, nil
}

// joinRules rebuilds a tag string from rules.
func joinRules(rs []rule) string {
	raws := make([]string, len(rs))
	for i, r := range rs {
		raws[i] = r.raw
	}
	return strings.Join(raws, ",")
}

// cutDive splits rules at the first dive: the rules before it apply to the
// value, those after it to each element.
func cutDive(rs []rule) (own, elems []rule, dived bool) {
	for i, r := range rs {
		if r.name == "dive" {
			return rs[:i], rs[i+1:], true
		}
	}
	return rs, nil, false
}

// skipKeys drops a leading keys ... endkeys group, which validates map keys
// and has no schema counterpart here.
func skipKeys(rs []rule) []rule {
	if len(rs) == 0 || rs[0].name != "keys" {
		return rs
	}
	for i, r := range rs {
		if r.name == "endkeys" {
			return rs[i+1:]
		}
	}
	return nil
}

func hasRule(rs []rule, name string) bool {
	for _, r := range rs {
		if r.name == name {
			return true
		}
	}
	return false
}

// isCrossField reports rules that compare with other struct fields, which
// a lone value cannot satisfy.
func isCrossField(name string) bool {
	return strings.HasSuffix(name, "field") ||
		strings.HasPrefix(name, "field") ||
		strings.HasPrefix(name, "required_") ||
		strings.HasPrefix(name, "excluded_") ||
		name == "skip_unless"
}

// formats maps validator rules to JSON Schema formats; uuid variants and
// datetime are handled in applyRules.
var formats = map[string]string{
	"email":            "email",
	"url":              "uri",
	"uri":              "uri",
	"hostname":         "hostname",
	"hostname_rfc1123": "hostname",
	"ipv4":             "ipv4",
	"ipv6":             "ipv6",
}

// applyRules writes the schema keywords that express rules on a value of
// kind k into kw, and returns the string enum from oneof, if any. Rules that
// cannot apply to k are errors, since validator would panic on them.
func applyRules(kw *keywords, k kind, rs []rule) ([]string, error) {
	var enum []string
	for _, r := range rs {
		if strings.Contains(r.raw, "|") {
			continue // an alternation has no single keyword
		}
		var err error
		switch r.name {
		case "min", "max", "len", "gt", "gte", "lt", "lte":
			err = applyBound(kw, k, r)
		case "oneof":
			enum, err = applyOneof(kw, k, r)
		default:
			format, ok := formats[r.name]
			switch {
			case ok:
			case strings.HasPrefix(r.name, "uuid"):
				format = "uuid"
			case r.name == "datetime":
				if isRFC3339(r.param) {
					format = "date-time"
				}
			default:
				continue
			}
			if k != kindString {
				return nil, fmt.Errorf("rule %q applies to strings, not to %s", r.raw, k.plural())
			}
			if format != "" && kw.Format == "" {
				kw.Format = format
			}
		}
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.raw, err)
		}
	}
	return enum, nil
}

// applyBound maps min, max, len, gt, gte, lt and lte.
func applyBound(kw *keywords, k kind, r rule) error {
	switch k {
	case kindString, kindArray, kindObject:
		n, err := strconv.ParseInt(r.param, 0, 64)
		if err != nil {
			return errors.New("the parameter must be an integer")
		}
		lo, hi := &kw.MinLength, &kw.MaxLength
		if k == kindArray {
			lo, hi = &kw.MinItems, &kw.MaxItems
		} else if k == kindObject {
			lo, hi = &kw.MinProperties, &kw.MaxProperties
		}
		switch r.name {
		case "min", "gte":
			atLeast(lo, n)
		case "gt":
			atLeast(lo, n+1)
		case "max", "lte":
			atMost(hi, n)
		case "lt":
			atMost(hi, n-1)
		case "len":
			atLeast(lo, n)
			atMost(hi, n)
		}
		return nil
	case kindInteger, kindNumber:
		n, err := numberParam(k, r.param)
		if err != nil {
			return err
		}
		switch r.name {
		case "min", "gte":
			lowerBound(&kw.Minimum, n)
		case "gt":
			lowerBound(&kw.ExclusiveMinimum, n)
		case "max", "lte":
			upperBound(&kw.Maximum, n)
		case "lt":
			upperBound(&kw.ExclusiveMaximum, n)
		case "len":
			lowerBound(&kw.Minimum, n)
			upperBound(&kw.Maximum, n)
		}
		return nil
	}
	return fmt.Errorf("does not apply to %s", k.plural())
}

// numberParam parses a bound as validator does for the kind and returns it
// as a JSON number.
func numberParam(k kind, param string) (json.Number, error) {
	if k == kindInteger {
		n, err := strconv.ParseInt(param, 0, 64)
		if err != nil {
			return "", errors.New("the parameter must be an integer")
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	f, err := strconv.ParseFloat(param, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", errors.New("the parameter must be a finite number")
	}
	b, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	return json.Number(b), nil
}

// applyOneof maps oneof to enum, with values typed like the field.
func applyOneof(kw *keywords, k kind, r rule) ([]string, error) {
	vals := oneofValues(r.param)
	if len(vals) == 0 {
		return nil, errors.New("no values")
	}
	enum := make([]any, len(vals))
	switch k {
	case kindString:
		for i, v := range vals {
			enum[i] = v
		}
		kw.Enum = enum
		return vals, nil
	case kindInteger:
		for i, v := range vals {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("value %q is not an integer", v)
			}
			enum[i] = n
		}
		kw.Enum = enum
		return nil, nil
	}
	return nil, fmt.Errorf("does not apply to %s", k.plural())
}

// oneofSplit tokenizes oneof parameters the way validator does: words
// separated by spaces, or 'quoted phrases'.
var oneofSplit = regexp.MustCompile(`'[^']*'|\S+`)

func oneofValues(param string) []string {
	vals := oneofSplit.FindAllString(param, -1)
	for i, v := range vals {
		vals[i] = strings.ReplaceAll(v, "'", "")
	}
	return vals
}

// fieldRules is what compiling the Validate option of a declared field
// yields.
type fieldRules struct {
	check    string // tag string validator runs on the value
	own      []rule // rules on the value, for schema keywords
	elems    []rule // rules after dive, for each array item
	dived    bool
	required bool
}

// compileFieldRules prepares the rules of a field declared with [New].
// required and omitempty are about presence, which the declaration handles
// itself, so they are not passed on to validator.
func compileFieldRules(tags string, k kind) (fieldRules, error) {
	rs, err := parseRules(tags)
	if err != nil {
		return fieldRules{}, err
	}
	var fr fieldRules
	own, elems, dived := cutDive(rs)
	if dived && k != kindArray {
		return fieldRules{}, fmt.Errorf("dive applies to arrays, not to %s", k.plural())
	}
	fr.elems, fr.dived = elems, dived
	check := make([]rule, 0, len(own))
	for _, r := range own {
		switch {
		case r.name == "required":
			fr.required = true
		case r.name == "omitempty":
		case r.name == "keys" || r.name == "endkeys":
			return fieldRules{}, fmt.Errorf("rule %q applies to maps, which declared objects are not", r.raw)
		case isCrossField(r.name):
			return fieldRules{}, fmt.Errorf("rule %q compares struct fields; declare the parameters with a struct", r.raw)
		default:
			check = append(check, r)
		}
	}
	fr.own = check
	fr.check = joinRules(check)
	return fr, nil
}
