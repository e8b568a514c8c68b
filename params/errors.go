package params

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// ValidationError reports every argument that failed validation.
type ValidationError struct {
	Fields []FieldError `json:"fields"`
}

// FieldError describes one failed argument.
type FieldError struct {
	// Path locates the argument: "bar", "address.city", "tags[1]"; it is
	// empty when the arguments as a whole are at fault.
	Path string `json:"path"`
	// Rule is the validator tag or schema keyword that failed, such as
	// "required", "type", "min", "email", "enum" or "oneof"; "duplicate"
	// for a key given twice and "case" for a key that differs from a
	// declared name only in case (Param holds the name).
	Rule string `json:"rule"`
	// Param is the rule's parameter, such as "64" for max=64.
	Param string `json:"param,omitempty"`
	// Message is a sentence naming the path and saying what is expected.
	Message string `json:"message"`
}

// Error returns all the field messages on one line, in words a language
// model can act on.
func (e *ValidationError) Error() string {
	if len(e.Fields) == 0 {
		return "invalid arguments"
	}
	var b strings.Builder
	b.WriteString("invalid arguments: ")
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Message)
	}
	return b.String()
}

// subject names path in a message.
func subject(path string) string {
	if path == "" {
		return "arguments"
	}
	return strconv.Quote(path)
}

// fieldError builds a FieldError whose message is the standard sentence for
// rule; k is the type of the failing value, which decides the wording of
// size rules ("characters", "items", or plain numbers).
func fieldError(path, rule, param string, k kind) FieldError {
	return FieldError{
		Path:    path,
		Rule:    rule,
		Param:   param,
		Message: subject(path) + " " + predicate(rule, param, k),
	}
}

// predicate is the part of a message that follows the subject.
func predicate(rule, param string, k kind) string {
	switch rule {
	case "required":
		return "is required"
	case "min", "max", "len", "gt", "gte", "lt", "lte":
		return sizePredicate(rule, param, k)
	case "minLength", "minItems", "minProperties", "minimum":
		return sizePredicate("min", param, k)
	case "maxLength", "maxItems", "maxProperties", "maximum":
		return sizePredicate("max", param, k)
	case "exclusiveMinimum":
		return sizePredicate("gt", param, k)
	case "exclusiveMaximum":
		return sizePredicate("lt", param, k)
	case "oneof":
		vals := oneofValues(param)
		if k == kindString {
			for i, v := range vals {
				vals[i] = strconv.Quote(v)
			}
		}
		return "must be one of: " + strings.Join(vals, ", ")
	case "email":
		return "must be a valid email address"
	case "url":
		return "must be a valid URL"
	case "uri":
		return "must be a valid URI"
	case "hostname", "hostname_rfc1123", "fqdn":
		return "must be a valid hostname"
	case "ip":
		return "must be a valid IP address"
	case "ipv4":
		return "must be a valid IPv4 address"
	case "ipv6":
		return "must be a valid IPv6 address"
	case "datetime":
		if isRFC3339(param) {
			return "must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z"
		}
		return "must be a date-time in the layout " + strconv.Quote(param)
	case "alphanum":
		return "must contain only ASCII letters and digits"
	case "alpha":
		return "must contain only ASCII letters"
	case "alphanumunicode":
		return "must contain only letters and digits"
	case "alphaunicode":
		return "must contain only letters"
	case "numeric":
		return "must be a numeric string"
	case "number":
		return "must be a string of digits"
	case "lowercase":
		return "must be lowercase"
	case "uppercase":
		return "must be uppercase"
	case "startswith":
		return "must start with " + strconv.Quote(param)
	case "endswith":
		return "must end with " + strconv.Quote(param)
	case "startsnotwith":
		return "must not start with " + strconv.Quote(param)
	case "endsnotwith":
		return "must not end with " + strconv.Quote(param)
	case "contains":
		return "must contain " + strconv.Quote(param)
	case "excludes":
		return "must not contain " + strconv.Quote(param)
	case "containsany":
		return "must contain at least one of the characters " + strconv.Quote(param)
	case "excludesall":
		return "must not contain any of the characters " + strconv.Quote(param)
	case "eq":
		return "must be equal to " + param
	case "ne":
		return "must not be equal to " + param
	case "unique":
		return "must not contain duplicates"
	case "json":
		return "must be valid JSON"
	case "boolean":
		return "must be a boolean string"
	}
	if strings.HasPrefix(rule, "uuid") {
		return "must be a valid UUID"
	}
	if param != "" {
		return "must satisfy " + rule + "=" + param
	}
	return "must satisfy " + rule
}

// sizePredicate words the bound rules, which validator applies to lengths
// of strings, item counts of arrays and values of numbers.
func sizePredicate(rule, n string, k kind) string {
	var unit string
	switch k {
	case kindString:
		unit = "character"
	case kindArray:
		unit = "item"
	case kindObject:
		unit = "entry"
	default:
		switch rule {
		case "min", "gte":
			return "must be " + n + " or greater"
		case "max", "lte":
			return "must be " + n + " or less"
		case "gt":
			return "must be greater than " + n
		case "lt":
			return "must be less than " + n
		default:
			return "must be equal to " + n
		}
	}
	if n != "1" {
		if k == kindObject {
			unit = "entries"
		} else {
			unit += "s"
		}
	}
	if k == kindString {
		switch rule {
		case "min", "gte":
			return "must be at least " + n + " " + unit + " long"
		case "max", "lte":
			return "must be at most " + n + " " + unit + " long"
		case "gt":
			return "must be longer than " + n + " " + unit
		case "lt":
			return "must be shorter than " + n + " " + unit
		default:
			return "must be exactly " + n + " " + unit + " long"
		}
	}
	switch rule {
	case "min", "gte":
		return "must contain at least " + n + " " + unit
	case "max", "lte":
		return "must contain at most " + n + " " + unit
	case "gt":
		return "must contain more than " + n + " " + unit
	case "lt":
		return "must contain fewer than " + n + " " + unit
	default:
		return "must contain exactly " + n + " " + unit
	}
}

// typeError reports a value of the wrong JSON type.
func typeError(path string, want kind, got any) FieldError {
	gotText := jsonTypeOf(got)
	// "must be an integer, got number" would puzzle; show the number.
	if n, ok := got.(json.Number); ok && want == kindInteger && len(n) <= 32 {
		gotText = string(n)
	}
	return FieldError{
		Path:    path,
		Rule:    "type",
		Param:   want.String(),
		Message: subject(path) + " must be " + want.article() + ", got " + gotText,
	}
}

func isRFC3339(layout string) bool {
	return layout == "" || layout == time.RFC3339 || layout == time.RFC3339Nano
}

// patternError says that a string does not match its Pattern.
func patternError(path, expr string) FieldError {
	return FieldError{Path: path, Rule: "pattern", Param: expr,
		Message: subject(path) + " must match the pattern " + truncate(expr)}
}
