// Package params declares the parameters of MCP tools and prompts.
//
// One declaration yields both the JSON Schema (draft 2020-12) that a client
// reads as a tool's inputSchema and the validation the server runs when the
// tool is called. Declarations are compiled once, by [New], [For], [ForType]
// or [Raw]; the resulting [*Schema] is immutable, safe for concurrent use, and
// its call path does no reflection over the declaration.
//
// # Declaring parameters
//
// Parameters can be declared field by field, in the style of Ecto schemas:
//
//	schema, err := params.New(
//		params.String("city", params.Required(), params.Validate("min=1,max=64")),
//		params.Integer("days", params.Default(3), params.Validate("min=1,max=14")),
//		params.Enum("units", []string{"metric", "imperial"}),
//		params.Array("tags", params.String(""), params.Validate("max=5,dive,max=32")),
//	)
//
// or as a struct, whose fields use the tags json (name, "-", omitempty,
// string), validate (go-playground/validator rules), description, title,
// default, header and pattern (a regular expression, see [Pattern]):
//
//	type Forecast struct {
//		City string `json:"city" validate:"required,min=1,max=64" description:"City name"`
//		Days int    `json:"days" validate:"min=1,max=14" default:"3"`
//	}
//	schema, err := params.For[Forecast]()
//
// or as a JSON Schema document given verbatim to [Raw].
//
// Call [Schema.Validate] to check arguments and get them as [Values], or
// [Schema.Bind] to decode them into a struct. Both report every failing field
// at once in a [*ValidationError] whose messages name the field and say what
// is expected, so that a language model can correct its call.
//
// # Types are strict
//
// Arguments are never coerced: "5" is not an integer, 1.5 is not an integer
// (2.0 is), and 1 is not a string. A JSON null is treated as an absent key.
// Keys that are not declared are ignored and left out of [Values].
//
// # Keys are exact
//
// Keys match declared names exactly, as in JSON Schema, so that a handler
// sees the arguments that the schema, the Mcp-Param-* header checks and any
// gateway on the way saw. Arguments that decoders could read differently
// are a validation error naming the key: a key given twice in one object,
// anywhere in the arguments, and a key that differs from a declared name
// only in case, such as "REGION" for "region" (encoding/json would bind it
// to the field). Raw schemas declare names at the top level; there, and in
// [Values.Decode], the case rule applies to the struct fields decoded into.
//
// # Validation tags and schema keywords
//
// The validate rules of a field (the [Validate] option or the validate struct
// tag) are enforced by go-playground/validator. Those that JSON Schema can
// express are also written into the schema, depending on the field's type:
//
//	required                  the key is listed in the parent's "required"
//	omitempty                 the key is optional; rules apply only when it is present
//	min, max, len             strings: minLength, maxLength (len sets both)
//	                          integers, numbers: minimum, maximum (len sets both)
//	                          arrays: minItems, maxItems; maps: minProperties, maxProperties
//	gt, gte, lt, lte          numbers: exclusiveMinimum, minimum, exclusiveMaximum, maximum
//	                          strings, arrays: length bounds (gt=3 is minLength 4)
//	oneof                     enum, typed like the field (oneof=1 2 3 gives [1,2,3])
//	email                     format "email"
//	url, uri                  format "uri"
//	uuid, uuid3, uuid4, ...   format "uuid" (every uuid* rule)
//	hostname, hostname_rfc1123  format "hostname"
//	ipv4, ipv6                format "ipv4", "ipv6"
//	datetime                  format "date-time" when the layout is RFC 3339 or absent;
//	                          a bare datetime checks RFC 3339, another layout is
//	                          enforced without a schema keyword
//	dive                      the rules after it apply to each array item (or map value)
//	                          and are written into "items" (or "additionalProperties")
//
// Every other rule, for example alphanum, alpha, numeric, startswith, endswith,
// contains, excludesall, or an alternation such as "email|url", has no schema
// equivalent and is enforced at call time only.
//
// In declarations made with [New], required means that the key must be present
// (and not null), exactly like the [Required] option; to reject an empty string
// add min=1. Rules that compare with another field (eqfield, required_if, ...)
// need a struct. In structs the rules keep validator's meaning: required
// rejects zero values, so a required bool must be true; use a pointer to
// accept false. The elements of a slice or map of structs are validated only
// when the field's rules contain dive, as in validator; declaring such a field
// without dive is a compile error so that the schema never promises more than
// is enforced.
//
// # Struct field types
//
// string, bool, every int and uint kind (integer; uint adds minimum 0),
// float32 and float64 (number), slices and arrays (array; []byte is a base64
// string), structs and pointers to structs (object), maps with string keys
// (object with additionalProperties), time.Time (string, format date-time),
// encoding.TextUnmarshaler implementations (string), and json.RawMessage,
// interfaces and other json.Unmarshaler implementations (any JSON value).
// Unexported fields are skipped and embedded structs are flattened as
// encoding/json does. Pointer fields are optional. Recursive types are not
// supported. A default tag holds a JSON value, except that for string fields
// it is the string itself; defaults apply to absent or null keys.
//
// # Headers
//
// The [Header] option (or header struct tag) emits "x-mcp-header" in a
// top-level scalar property so that transports can mirror the argument into
// an HTTP header (MCP SEP-2243).
package params
