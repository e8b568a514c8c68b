// Package wire checks JSON-RPC messages against the official MCP JSON Schema
// of a protocol version.
//
// The schemas are the official ones, unchanged, kept in the repository as
// test data under testdata/mcp-schema/<version>/schema.json (see [Dir]), so a
// clone with nothing beside it runs every check.
//
// [Validator.Validate] checks a whole message. Besides the version's
// JSONRPCMessage definition it applies the definition the message names
// itself: a request or notification is also checked against the definition
// whose "method" constant matches (so a notifications/progress without a
// progressToken fails, although it is a valid generic notification), an
// error response against the definition whose error code constant matches
// (for example -32021 must carry data.requiredCapabilities in 2026-07-28),
// and a result whose resultType is "input_required" against
// InputRequiredResult. This mirrors what the official conformance suite
// checks on the wire.
//
// The result of a successful response is typed only loosely in every schema
// version: JSONRPCMessage allows any object there (2026-07-28 only requires
// resultType). A message cannot say which request it answers, so the caller,
// which knows, checks the specific result type with [Validator.ValidateAs]:
//
//	v, err := wire.Load("2025-11-25")
//	...
//	err = v.Validate(msg)                              // the envelope
//	err = v.ValidateAs("InitializeResult", resultJSON) // the result itself
//
// [Validator.ResultDef] maps a request method to its result definition.
package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/specter-mcp/specter/integration/internal/module"
)

// EnvDir names the environment variable that overrides the schema directory.
const EnvDir = "SPECTER_MCP_SCHEMA_DIR"

// Dir returns the directory holding <version>/schema.json for each protocol
// version: $SPECTER_MCP_SCHEMA_DIR if set, otherwise testdata/mcp-schema in
// the root of the main module, found by walking up from the working
// directory (a package's own directory under go test) to go.mod.
func Dir() (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		root, err := module.Root()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "testdata", "mcp-schema")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("wire: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("wire: schema directory: %w (set %s to point elsewhere)", err, EnvDir)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("wire: schema directory %s is not a directory", dir)
	}
	return dir, nil
}

// versionRE matches protocol version names; checking it keeps a version
// from naming a path outside the schema directory.
var versionRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// loaded caches one Validator per schema file. It is keyed by path, not by
// version, so that a changed $SPECTER_MCP_SCHEMA_DIR takes effect.
var loaded sync.Map // string → *loadOnce

type loadOnce struct {
	once sync.Once
	v    *Validator
	err  error
}

// Load returns the Validator for a protocol version such as "2025-11-25".
// The schema is read and compiled once per process; Load and the returned
// Validator are safe for concurrent use.
func Load(version string) (*Validator, error) {
	if !versionRE.MatchString(version) {
		return nil, fmt.Errorf("wire: invalid protocol version %q", version)
	}
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, version, "schema.json")
	e, _ := loaded.LoadOrStore(path, new(loadOnce))
	l := e.(*loadOnce)
	l.once.Do(func() { l.v, l.err = load(version, path) })
	return l.v, l.err
}

// A Validator checks messages against the schema of one protocol version.
type Validator struct {
	version string
	loc     string              // URL of the schema document in compiler
	defsKey string              // "definitions" (draft-07) or "$defs" (2020-12)
	defs    map[string]bool     // names of the definitions
	methods map[string][]string // method → request or notification definitions
	errs    map[string][]string // error code → error response definitions
	results map[string]string   // request method → result definition

	mu       sync.Mutex // guards compiler and schemas
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// unions are the definitions that merely group others (ServerResult and so
// on). Some repeat a member's method constant; they add nothing when a
// message is checked against its own definition.
var unions = map[string]bool{
	"ClientRequest": true, "ClientNotification": true, "ClientResult": true, "ClientMessage": true,
	"ServerRequest": true, "ServerNotification": true, "ServerResult": true, "ServerMessage": true,
}

func load(version, path string) (*Validator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("wire: protocol version %s: %w", version, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("wire: %s: %w", path, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("wire: %s: not a JSON object", path)
	}
	v := &Validator{
		version: version,
		loc:     path,
		defs:    make(map[string]bool),
		methods: make(map[string][]string),
		errs:    make(map[string][]string),
		results: make(map[string]string),
		schemas: make(map[string]*jsonschema.Schema),
	}
	// Draft-07 schemas (up to 2025-06-18) keep their types under
	// "definitions", 2020-12 schemas (from 2025-11-25) under "$defs".
	var defs map[string]any
	for _, key := range []string{"$defs", "definitions"} {
		if d, ok := root[key].(map[string]any); ok {
			v.defsKey, defs = key, d
			break
		}
	}
	if defs == nil {
		return nil, fmt.Errorf("wire: %s: no definitions", path)
	}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names) // deterministic order for the per-method lists
	for _, name := range names {
		v.defs[name] = true
		def, _ := defs[name].(map[string]any)
		props, _ := def["properties"].(map[string]any)
		if props == nil || unions[name] {
			continue
		}
		if method, ok := constOf(props["method"]).(string); ok {
			v.methods[method] = append(v.methods[method], name)
			if base, ok := strings.CutSuffix(name, "Request"); ok && defs[base+"Result"] != nil {
				v.results[method] = base + "Result"
			}
		}
		// Specific errors pin their code as allOf[Error, {code: {const}}].
		errProp, _ := props["error"].(map[string]any)
		allOf, _ := errProp["allOf"].([]any)
		for _, sub := range allOf {
			sub, _ := sub.(map[string]any)
			subProps, _ := sub["properties"].(map[string]any)
			if code, ok := constOf(subProps["code"]).(json.Number); ok {
				v.errs[code.String()] = append(v.errs[code.String()], name)
			}
		}
	}

	c := jsonschema.NewCompiler()
	// The schema files declare their own $schema, so each compiles under
	// its draft. Format assertions are off by default for 2020-12; turn them
	// on so that every version checks uri and uri-template as the
	// conformance suite's validator does.
	c.AssertFormat()
	// "byte" (base64 image, audio and blob data) is unknown to the library
	// and would pass anything. Clients decode it strictly, so check it.
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: validateBase64})
	if err := c.AddResource(v.loc, doc); err != nil {
		return nil, fmt.Errorf("wire: %s: %w", path, err)
	}
	v.compiler = c
	if _, err := v.schema("JSONRPCMessage"); err != nil {
		return nil, err
	}
	return v, nil
}

// constOf returns the "const" of a property schema, or nil.
func constOf(prop any) any {
	p, _ := prop.(map[string]any)
	return p["const"]
}

func validateBase64(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil // format applies to strings only
	}
	_, err := base64.StdEncoding.Strict().DecodeString(s)
	return err
}

// Version returns the protocol version whose schema v checks against.
func (v *Validator) Version() string { return v.version }

// Has reports whether the schema defines def. Definitions come and go
// between versions: 2026-07-28, for one, has no InitializeResult.
func (v *Validator) Has(def string) bool { return v.defs[def] }

// ResultDef returns the name of the result definition for a request method,
// such as "CallToolResult" for "tools/call". It reports false for unknown
// methods and for those whose result is only EmptyResult (ping, for one),
// since the schema pairs request and result by name alone.
func (v *Validator) ResultDef(method string) (string, bool) {
	def, ok := v.results[method]
	return def, ok
}

// schema returns the compiled schema of a definition, compiling it on
// first use. The compiler is not safe for concurrent use; compiled schemas
// are.
func (v *Validator) schema(def string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.schemas[def]; ok {
		return s, nil
	}
	if !v.defs[def] {
		return nil, fmt.Errorf("wire: the %s schema has no definition %q", v.version, def)
	}
	s, err := v.compiler.Compile(v.loc + "#/" + v.defsKey + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("wire: %s %s: %w", v.version, def, err)
	}
	v.schemas[def] = s
	return s, nil
}

// Validate checks one JSON-RPC message (request, notification, response or
// error response; in 2025-03-26 also a batch array) against the version's
// JSONRPCMessage definition and, as the package documentation describes,
// against the specific definition the message names. It does not check the
// type of a successful result; use ValidateAs for that.
func (v *Validator) Validate(msg []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("wire: message is not JSON: %w", err)
	}
	if err := v.check("JSONRPCMessage", doc); err != nil {
		return err
	}
	if batch, ok := doc.([]any); ok {
		for i, m := range batch {
			if err := v.checkSpecific(m); err != nil {
				return fmt.Errorf("batch element %d: %w", i, err)
			}
		}
		return nil
	}
	return v.checkSpecific(doc)
}

// checkSpecific applies the definitions selected by the message's method,
// error code or resultType.
func (v *Validator) checkSpecific(doc any) error {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	var defs []string
	if method, ok := m["method"].(string); ok {
		defs = v.methods[method]
	} else if e, ok := m["error"].(map[string]any); ok {
		if code, ok := e["code"].(json.Number); ok {
			defs = v.errs[code.String()]
		}
	} else if r, ok := m["result"].(map[string]any); ok {
		if r["resultType"] == "input_required" && v.defs["InputRequiredResult"] {
			return v.check("InputRequiredResult", r)
		}
	}
	for _, def := range defs {
		if err := v.check(def, doc); err != nil {
			return err
		}
	}
	return nil
}

// ValidateAs checks a JSON value against the named definition of the
// version's schema, for example a response's result against
// "InitializeResult", "CallToolResult" or "ListToolsResult". It fails if
// the schema has no such definition.
func (v *Validator) ValidateAs(def string, value []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return fmt.Errorf("wire: value is not JSON: %w", err)
	}
	return v.check(def, doc)
}

func (v *Validator) check(def string, doc any) error {
	s, err := v.schema(def)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("wire: not a valid %s %s: %w", v.version, def, err)
	}
	return nil
}
