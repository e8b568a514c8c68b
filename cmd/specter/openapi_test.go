package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/specter-mcp/specter/mcp"
)

// petstoreDoc is the Petstore 3.0 document of the npm harness of package
// openapi (make test installs it).
var petstoreDoc = filepath.Join("..", "..", "openapi", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json")

// build returns the command TestMain built, once the OpenAPI documents
// it serves are there.
func build(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(petstoreDoc); err != nil && testing.Short() {
		t.Skipf("the OpenAPI documents are not installed (%v); `make test` installs them", err)
	} else if err != nil {
		t.Fatalf("the OpenAPI documents are not installed (%v): run `make test`, or `npm ci --prefix openapi/testdata/npm` in the module root", err)
	}
	return specterBin // built by TestMain
}

// petAPI answers GET /v2/pet/{id} for the key k-1 only.
func petAPI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("X-Api-Key") != "k-1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v2/pet/12" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Pet not found"}`)
			return
		}
		io.WriteString(w, `{"id":12,"name":"rex","photoUrls":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// check lists and calls the petstore's tools through an official Go SDK
// session.
func check(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 20 {
		t.Errorf("%d tools, want 20", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "getPetById", Arguments: map[string]any{"petId": 12}})
	if err != nil || res.IsError {
		t.Fatalf("getPetById: %v %+v", err, res)
	}
	var pet struct{ Name string }
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(b, &pet) != nil || pet.Name != "rex" {
		t.Errorf("getPetById: structuredContent %s", b)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "getPetById", Arguments: map[string]any{"petId": 13}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "HTTP 404") {
		t.Fatalf("getPetById 13: %v %+v", err, res)
	}
}

func TestOpenAPIStdioGoSDK(t *testing.T) {
	bin := build(t)
	api, calls := petAPI(t)
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cmd := exec.Command(bin, "openapi", petstoreDoc, "--base-url", api.URL+"/v2")
			cmd.Env = append(os.Environ(), "SPECTER_OPENAPI_HEADER_X_API_KEY=k-1")
			var opts *sdk.ClientSessionOptions
			if version != mcp.Version20260728 {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
			}
			client := sdk.NewClient(&sdk.Implementation{Name: "specter-openapi-test", Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			check(t, cs)
		})
	}
	if calls.Load() != 4 {
		t.Errorf("the API got %d calls, want 4", calls.Load())
	}
}

func TestOpenAPIHTTP(t *testing.T) {
	bin := build(t)
	api, _ := petAPI(t)
	cmd := exec.Command(bin, "openapi", "--base-url", api.URL+"/v2", "--http", "127.0.0.1:0", petstoreDoc)
	cmd.Env = append(os.Environ(), "SPECTER_OPENAPI_HEADER_X_API_KEY=k-1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("specter openapi --http: %v", err)
		}
	}()
	lines := bufio.NewScanner(stderr)
	var url string
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "serving MCP at "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("the command printed no URL")
	}
	go io.Copy(io.Discard, stderr)
	client := sdk.NewClient(&sdk.Implementation{Name: "specter-openapi-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	check(t, cs)
}

func TestOpenAPIUsage(t *testing.T) {
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"openapi", "--help"}, streams{Out: &out, Err: &errOut}); code != 0 || !strings.Contains(errOut.String(), "SPECTER_OPENAPI_TOKEN") || !strings.Contains(errOut.String(), "-base-url") {
		t.Errorf("openapi --help: %d\n%s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"openapi"}, streams{Out: &out, Err: &errOut}); code != 2 || !strings.Contains(errOut.String(), "Usage: specter openapi DOC") {
		t.Errorf("openapi without a document: %d\n%s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"nope"}, streams{Out: &out, Err: &errOut}); code != 2 || !strings.Contains(errOut.String(), "unknown command") || !strings.Contains(errOut.String(), "openapi") {
		t.Errorf("an unknown command: %d\n%s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"openapi", "no-such-file.yaml"}, streams{Out: &out, Err: &errOut}); code != 1 || !strings.Contains(errOut.String(), "no-such-file.yaml") {
		t.Errorf("a missing document: %d\n%s", code, errOut.String())
	}
}

func TestEnvHeader(t *testing.T) {
	h := envHeader([]string{"SPECTER_OPENAPI_TOKEN=t0", "SPECTER_OPENAPI_HEADER_X_API_KEY=k", "OTHER=x", "SPECTER_OPENAPI_HEADER_=y"})
	if len(h) != 2 || h.Get("Authorization") != "Bearer t0" || h.Get("X-Api-Key") != "k" {
		t.Errorf("envHeader = %v", h)
	}
}
