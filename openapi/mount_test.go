package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/openapi"
	"github.com/specter-mcp/specter/principal"
	"github.com/specter-mcp/specter/transform"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// petstore is a test server implementing a handful of the Petstore 3.0
// document's operations under /v2, counting the calls it gets.
type petstore struct {
	calls, flaky atomic.Int32
	lastAuth     atomic.Value
}

func (p *petstore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	p.lastAuth.Store(r.Header.Get("Authorization"))
	if r.Header.Get("X-Api-Key") != "k-alice" && r.Header.Get("X-Api-Key") != "k-bob" {
		http.Error(w, `{"message":"no key"}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v2/pet":
		var pet map[string]any
		if err := json.NewDecoder(r.Body).Decode(&pet); err != nil || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message":"bad body"}`)
			return
		}
		pet["id"] = 7
		json.NewEncoder(w).Encode(pet)
	case r.Method == http.MethodGet && r.URL.Path == "/v2/pet/findByStatus":
		if p.flaky.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var pets []map[string]any
		for _, s := range r.URL.Query()["status"] {
			pets = append(pets, map[string]any{"name": "rex", "status": s})
		}
		json.NewEncoder(w).Encode(pets)
	case r.Method == http.MethodGet && r.URL.Path == "/v2/pet/12":
		io.WriteString(w, `{"id":12,"name":"rex","photoUrls":[]}`)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v2/pet/"):
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Pet not found"}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v2/pet/12":
		if p.flaky.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.ParseForm()
		json.NewEncoder(w).Encode(map[string]any{"name": r.PostForm.Get("name"), "status": r.PostForm.Get("status")})
	case r.Method == http.MethodDelete && r.URL.Path == "/v2/pet/12":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "deleted by "+r.Header.Get("api_key"))
	case r.URL.Path == "/v2/store/inventory":
		io.WriteString(w, `{"available":3}`)
	case r.URL.Path == "/v2/user/logout":
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0, 1, 2})
	default:
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, strings.Repeat("x", 5000))
	}
}

// keys is a per-caller credential function: each principal its own key.
func keys(c *specter.Context, req *http.Request) error {
	if p := c.Caller(); p != nil {
		req.Header.Set("X-Api-Key", "k-"+p.ID)
	}
	return nil
}

// asCaller is authentication middleware of the MCP endpoint: the caller
// is the X-User header's user, with an audience claim.
func asCaller(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(principal.NewContext(r.Context(), &principal.Principal{ID: u, Claims: map[string]any{"aud": []any{"https://pets.example"}}}))
		}
		h.ServeHTTP(w, r)
	})
}

func petstoreServer(t *testing.T, o openapi.Options) (*petstore, http.Handler) {
	t.Helper()
	doc, err := openapi.Parse(readDoc(t, petstore30))
	if err != nil {
		t.Fatal(err)
	}
	api := &petstore{}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	o.BaseURL = srv.URL + "/v2"
	o.Client = srv.Client()
	if o.Credentials == nil {
		o.Credentials = keys
	}
	r := specter.NewRouter("pets", "1.0")
	if err := openapi.Mount(r, doc, o); err != nil {
		t.Fatal(err)
	}
	return api, asCaller(r.Handler())
}

func connectAs(t *testing.T, h http.Handler, user, version string) *client.Client {
	t.Helper()
	withUser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-User", user)
		r.Header.Set("Authorization", "Bearer token-of-"+user)
		h.ServeHTTP(w, r)
	})
	return mcptest.Connect(t, withUser, &client.Options{Version: version})
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestPetstoreCallsThroughTools(t *testing.T) {
	for _, version := range []string{mcp.LatestSessionVersion, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			api, h := petstoreServer(t, openapi.Options{})
			c := connectAs(t, h, "alice", version)
			ctx := context.Background()

			// Path parameter; JSON object → structuredContent and text.
			res, err := c.CallTool(ctx, "getPetById", map[string]any{"petId": 12})
			if err != nil || res.IsError {
				t.Fatalf("getPetById: %v %+v", err, res)
			}
			if string(res.StructuredContent) != `{"id":12,"name":"rex","photoUrls":[]}`+"\n" && !strings.Contains(string(res.StructuredContent), `"name":"rex"`) {
				t.Errorf("structuredContent = %s", res.StructuredContent)
			}
			// A 404 is an isError result naming the status and quoting the body.
			res, err = c.CallTool(ctx, "getPetById", map[string]any{"petId": 99})
			if err != nil || !res.IsError || !strings.Contains(text(res), "HTTP 404 Not Found") || !strings.Contains(text(res), "Pet not found") {
				t.Fatalf("getPetById 99: %v %+v", err, res)
			}
			// Query array, exploded; a JSON array is text only.
			res, err = c.CallTool(ctx, "findPetsByStatus", map[string]any{"status": []any{"available", "sold"}})
			if err != nil || res.IsError || res.StructuredContent != nil || !strings.Contains(text(res), `"status":"sold"`) {
				t.Fatalf("findPetsByStatus: %v %+v", err, res)
			}
			// A JSON body from flattened arguments; readOnly id is not one.
			res, err = c.CallTool(ctx, "addPet", map[string]any{"name": "fido", "photoUrls": []any{"u"}, "status": "available"})
			if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"name":"fido"`) {
				t.Fatalf("addPet: %v %+v", err, res)
			}
			// A form body, and a header parameter with a text answer.
			res, err = c.CallTool(ctx, "updatePetWithForm", map[string]any{"petId": 12, "name": "max", "status": "sold"})
			if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"name":"max"`) {
				t.Fatalf("updatePetWithForm: %v %+v", err, res)
			}
			res, err = c.CallTool(ctx, "deletePet", map[string]any{"petId": 12, "api_key": "abc"})
			if err != nil || res.IsError || text(res) != "deleted by abc" {
				t.Fatalf("deletePet: %v %+v", err, res)
			}
			// Arguments are validated before any request is made.
			before := api.calls.Load()
			if res, err := c.CallTool(ctx, "addPet", map[string]any{"photoUrls": []any{"u"}}); err == nil && !res.IsError {
				t.Error("addPet without its required name succeeded")
			}
			if api.calls.Load() != before {
				t.Error("an invalid call reached the API")
			}
			// A 5xx quotes a bounded excerpt.
			res, err = c.CallTool(ctx, "getOrderById", map[string]any{"orderId": 1})
			if err != nil || !res.IsError || !strings.HasPrefix(text(res), "HTTP 500 Internal Server Error: xxx") || len(text(res)) > 1200 {
				t.Fatalf("getOrderById: %v %d %.80s", err, len(text(res)), text(res))
			}
			// Binary → an embedded blob.
			res, err = c.CallTool(ctx, "logoutUser", map[string]any{})
			if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].ContentType() != "resource" {
				t.Fatalf("logoutUser: %v %+v", err, res)
			}
			// The caller's token went nowhere: no audience was named.
			if a := api.lastAuth.Load(); a != "" {
				t.Errorf("the API got Authorization %q", a)
			}
		})
	}
}

func TestPetstoreToolList(t *testing.T) {
	_, h := petstoreServer(t, openapi.Options{})
	c := connectAs(t, h, "alice", mcp.Version20260728)
	res, err := c.ListTools(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	if len(tools) != 20 {
		t.Errorf("%d tools, want 20", len(tools))
	}
	get, del, put := tools["getPetById"], tools["deletePet"], tools["updatePet"]
	if a := get.Annotations; a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
		t.Errorf("getPetById annotations %+v", a)
	}
	if a := del.Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("deletePet annotations %+v", a)
	}
	if a := put.Annotations; a == nil || a.IdempotentHint == nil || !*a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("updatePet annotations %+v", a)
	}
	if get.OutputSchema == nil {
		t.Error("getPetById has no output schema")
	}
	var in struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(tools["addPet"].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	if _, ok := in.Properties["id"]; ok {
		t.Error("addPet takes the readOnly id")
	}
	if strings.Join(in.Required, ",") != "name,photoUrls" {
		t.Errorf("addPet requires %v", in.Required)
	}
}

func TestRetriesOnlyIdempotent(t *testing.T) {
	api, h := petstoreServer(t, openapi.Options{Retries: 2})
	c := connectAs(t, h, "alice", mcp.Version20260728)
	ctx := context.Background()
	api.flaky.Store(2)
	res, err := c.CallTool(ctx, "findPetsByStatus", map[string]any{"status": []any{"sold"}})
	if err != nil || res.IsError || api.calls.Load() != 3 {
		t.Fatalf("GET after two 503s: %v %+v, %d calls", err, res, api.calls.Load())
	}
	api.flaky.Store(1)
	res, err = c.CallTool(ctx, "updatePetWithForm", map[string]any{"petId": 12, "name": "a"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "HTTP 503") || api.calls.Load() != 4 {
		t.Fatalf("POST after a 503: %v %+v, %d calls", err, res, api.calls.Load())
	}
}

func TestCredentialsPerCaller(t *testing.T) {
	_, h := petstoreServer(t, openapi.Options{})
	ctx := context.Background()
	for user, ok := range map[string]bool{"alice": true, "bob": true, "eve": false} {
		res, err := connectAs(t, h, user, mcp.Version20260728).CallTool(ctx, "getInventory", map[string]any{})
		if err != nil || res.IsError == ok {
			t.Errorf("%s: %v %+v", user, err, res)
		}
	}
}

func TestForwardCallerTokenOnlyToItsAudience(t *testing.T) {
	for aud, want := range map[string]string{"https://pets.example": "Bearer token-of-alice", "https://other.example": ""} {
		api, h := petstoreServer(t, openapi.Options{ForwardCallerToken: aud})
		res, err := connectAs(t, h, "alice", mcp.Version20260728).CallTool(context.Background(), "getInventory", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		if got := api.lastAuth.Load(); got != want {
			t.Errorf("audience %s: the API got Authorization %q, want %q", aud, got, want)
		}
	}
}

func TestResponseSizeBound(t *testing.T) {
	_, h := petstoreServer(t, openapi.Options{MaxResponseBytes: 100})
	res, err := connectAs(t, h, "alice", mcp.Version20260728).CallTool(context.Background(), "getOrderById", map[string]any{"orderId": 1})
	if err != nil || !res.IsError || !strings.Contains(text(res), "larger than 100 bytes") {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	doc, err := openapi.Parse([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/slow":{"post":{"operationId":"slow","responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := specter.NewRouter("t", "1")
	if err := openapi.Mount(r, doc, openapi.Options{BaseURL: srv.URL, Timeout: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	res, err := mcptest.Connect(t, r.Handler(), nil).CallTool(context.Background(), "slow", map[string]any{})
	if err != nil || !res.IsError || !strings.Contains(text(res), "deadline exceeded") {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestTransform(t *testing.T) {
	_, h := petstoreServer(t, openapi.Options{Transform: map[string]transform.Tool{
		"deletePet": {
			Name:        "remove_pet",
			Description: "Remove a pet from the store.",
			Args:        map[string]transform.Arg{"petId": {Name: "id"}, "api_key": {Value: "fixed"}},
			Result: func(_ context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				res.Content = append(res.Content, mcp.Text(" (checked)"))
				return res, nil
			},
		},
	}})
	c := connectAs(t, h, "alice", mcp.Version20260728)
	ctx := context.Background()
	list, err := c.ListTools(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tool := range list.Tools {
		switch tool.Name {
		case "deletePet":
			t.Error("deletePet is listed under its old name")
		case "remove_pet":
			found = true
			if tool.Description != "Remove a pet from the store." || strings.Contains(string(tool.InputSchema), "api_key") || !strings.Contains(string(tool.InputSchema), `"id"`) {
				t.Errorf("remove_pet: %q %s", tool.Description, tool.InputSchema)
			}
			if a := tool.Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
				t.Errorf("remove_pet lost its annotations: %+v", a)
			}
		}
	}
	if !found {
		t.Fatal("remove_pet is not listed")
	}
	res, err := c.CallTool(ctx, "remove_pet", map[string]any{"id": 12})
	if err != nil || res.IsError || text(res) != "deleted by fixed (checked)" {
		t.Fatalf("remove_pet: %v %q", err, text(res))
	}
}

func TestRouteMaps(t *testing.T) {
	maps := append([]openapi.RouteMap{{Tags: []string{"user"}, Kind: openapi.Exclude}}, openapi.ResourceRouteMaps...)
	_, h := petstoreServer(t, openapi.Options{RouteMaps: maps})
	c := connectAs(t, h, "alice", mcp.Version20260728)
	ctx := context.Background()
	tools, err := c.ListTools(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	// 20 operations: 8 of the user tag left out, 2 GETs with only path
	// parameters templates, 1 GET without parameters a resource.
	if len(names) != 9 || strings.Contains(strings.Join(names, ","), "User") {
		t.Errorf("tools %v", names)
	}
	templates, err := c.ListResourceTemplates(ctx, "")
	if err != nil || len(templates.ResourceTemplates) != 2 {
		t.Fatalf("templates %v %+v", err, templates)
	}
	res, err := c.ReadResource(ctx, "openapi://pet/12")
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text == nil || !strings.Contains(*res.Contents[0].Text, `"rex"`) {
		t.Fatalf("read openapi://pet/12: %v %+v", err, res)
	}
	if _, err := c.ReadResource(ctx, "openapi://pet/99"); err == nil {
		t.Error("a 404 read succeeded")
	}
	res, err = c.ReadResource(ctx, "openapi://store/inventory")
	if err != nil || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read openapi://store/inventory: %v %+v", err, res)
	}
}

// TestDeclareOptions applies a declaration's options to generated tools:
// a scope on the destructive ones, and call middleware on all.
func TestDeclareOptions(t *testing.T) {
	var seen []string
	_, h := petstoreServer(t, openapi.Options{Declare: func(op *openapi.Operation) []specter.Option {
		opts := []specter.Option{specter.Use(func(next specter.Call) specter.Call {
			return func(req *specter.Request, c *specter.Context) specter.Result {
				seen = append(seen, req.Name)
				return next(req, c)
			}
		})}
		if op.Method == http.MethodDelete {
			opts = append(opts, specter.Scopes("pets:write"))
		}
		return opts
	}})
	c := connectAs(t, h, "alice", mcp.Version20260728)
	ctx := context.Background()
	if res, err := c.CallTool(ctx, "deletePet", map[string]any{"petId": 12}); err == nil && !res.IsError {
		t.Error("deletePet without pets:write succeeded")
	}
	if res, err := c.CallTool(ctx, "getInventory", map[string]any{}); err != nil || res.IsError {
		t.Fatalf("getInventory: %v %+v", err, res)
	}
	if strings.Join(seen, ",") != "getInventory" {
		t.Errorf("the middleware saw %v", seen)
	}
}
