package params

import "github.com/specter-mcp/specter/internal/option"

// Field declares one parameter. Build it with [String], [Integer], [Number],
// [Boolean], [Enum], [Array] or [Object] and pass it to [New]. A Field is an
// inert description: nothing is checked until [New] compiles it.
type Field struct {
	name        string
	kind        kind
	required    bool
	hasDefault  bool
	def         any
	title       string
	description string
	rules       string
	pattern     string
	header      string
	enum        []string
	items       *Field
	fields      []Field
}

// Option configures a [Field].
type Option func(*Field)

func newField(name string, k kind, opts []Option) Field {
	f := Field{name: name, kind: k}
	for _, opt := range opts {
		if opt != nil {
			opt(&f)
		}
	}
	return f
}

// String declares a string parameter.
func String(name string, opts ...Option) Field {
	return newField(name, kindString, opts)
}

// Integer declares an integer parameter. Its values are int64.
func Integer(name string, opts ...Option) Field {
	return newField(name, kindInteger, opts)
}

// Number declares a numeric parameter. Its values are float64.
func Number(name string, opts ...Option) Field {
	return newField(name, kindNumber, opts)
}

// Boolean declares a boolean parameter.
func Boolean(name string, opts ...Option) Field {
	return newField(name, kindBoolean, opts)
}

// Enum declares a string parameter restricted to values.
func Enum(name string, values []string, opts ...Option) Field {
	f := newField(name, kindString, opts)
	// Copied so that the caller may reuse its slice.
	f.enum = append([]string{}, values...)
	return f
}

// Array declares an array parameter whose items are described by items; the
// name of items is ignored.
func Array(name string, items Field, opts ...Option) Field {
	f := newField(name, kindArray, opts)
	f.items = &items
	return f
}

// Object declares an object parameter with the given properties; keys it
// does not declare are dropped from Values. An Object without fields is
// free-form: it accepts and keeps any keys.
func Object(name string, fields []Field, opts ...Option) Field {
	f := newField(name, kindObject, opts)
	f.fields = append([]Field{}, fields...)
	return f
}

// Required makes the parameter mandatory: an absent or null value is an error.
func Required() Option {
	return func(f *Field) { f.required = true }
}

// Default sets the value used when the parameter is absent or null. It must
// have the parameter's type and satisfy its rules.
func Default(v any) Option {
	return func(f *Field) {
		f.hasDefault = true
		f.def = v
	}
}

// Description sets the schema's description, the text a model reads to
// decide what to pass.
func Description(s string) Option {
	return func(f *Field) { f.description = s }
}

// Title sets the schema's title.
func Title(s string) Option {
	return func(f *Field) { f.title = s }
}

// Validate adds go-playground/validator rules, such as "min=1,max=64".
// Repeated calls append to the rules. See the package documentation for the
// rules that also appear in the schema.
func Validate(tags string) Option {
	return func(f *Field) {
		switch {
		case tags == "":
		case f.rules == "":
			f.rules = tags
		default:
			f.rules += "," + tags
		}
	}
}

// Pattern restricts a string parameter to values that match expr, a Go
// regular expression (RE2 syntax), and puts it in the schema as "pattern".
// As in JSON Schema, the match is unanchored: write ^ and $ to match the
// whole value. The expression is compiled once, when the params are
// compiled; one that does not compile fails the declaration (a declaring
// method panics with a *specter.DeclarationError naming the field). Keep
// to the syntax RE2 and ECMA-262 share (classes, groups, quantifiers,
// anchors) so that clients read the pattern as the server does.
func Pattern(expr string) Option {
	return func(f *Field) { f.pattern = expr }
}

// Header mirrors the parameter into the named HTTP header by emitting
// "x-mcp-header" in its schema. It is allowed only on top-level string,
// integer, number and boolean parameters.
func Header(name string) Option {
	return func(f *Field) { f.header = name }
}

// DeclarationOption makes a Field an option of specter's declarations
// (r.Tool, r.Prompt): a field given there declares a parameter.
func (Field) DeclarationOption(option.Seal) {}
