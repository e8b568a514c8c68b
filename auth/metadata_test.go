package auth_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/auth"
)

var testMeta = auth.Metadata{
	Resource:             testAudience,
	AuthorizationServers: []string{testIssuer},
	ScopesSupported:      []string{"mcp:tools", "mcp:read"},
	ResourceName:         "Example MCP",
}

const testMetaJSON = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],` +
	`"scopes_supported":["mcp:tools","mcp:read"],"bearer_methods_supported":["header"],"resource_name":"Example MCP"}`

func TestMetadataHandler(t *testing.T) {
	srv := httptest.NewServer(auth.MetadataHandler(testMeta))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != testMetaJSON {
		t.Errorf("GET: status %d, body\n got %s\nwant %s", resp.StatusCode, body, testMetaJSON)
	}
	for h, want := range map[string]string{
		"Content-Type":                "application/json",
		"Cache-Control":               "public, max-age=3600",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s %q, want %q", h, got, want)
		}
	}

	resp, err = http.Head(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(testMetaJSON)) {
		t.Errorf("HEAD: status %d, length %d", resp.StatusCode, resp.ContentLength)
	}

	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: status %d, Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// One Config states the metadata document, serves it at both well-known
// URLs, and the URL the challenges of auth.JWT name is one of them.
func TestMountMetadata(t *testing.T) {
	cfg := rsaConfig()
	cfg.Scopes, cfg.ResourceName = testMeta.ScopesSupported, testMeta.ResourceName
	if got := cfg.Metadata(); !reflect.DeepEqual(got, testMeta) {
		t.Errorf("Config.Metadata\n got %+v\nwant %+v", got, testMeta)
	}
	e := echo.New()
	auth.MountMetadata(e, cfg)
	e.Group("/mcp", auth.JWT(cfg)).POST("", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	srv := httptest.NewServer(e)
	defer srv.Close()

	resp, _ := call(t, srv.URL+"/mcp")
	challenge := `Bearer resource_metadata="` + testMetadata + `", scope="mcp:tools mcp:read"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
		t.Errorf("POST /mcp: status %d, challenge\n got %s\nwant %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), challenge)
	}
	named := strings.TrimPrefix(testMetadata, "https://mcp.example.com")
	for _, path := range []string{named, "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != testMetaJSON {
			t.Errorf("GET %s: status %d, body %s", path, resp.StatusCode, body)
		}
		resp, err = http.Post(srv.URL+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: status %d, want 405", path, resp.StatusCode)
		}
	}
}

// MountMetadata refuses to start with a config NewVerifier refuses.
func TestMountMetadataPanics(t *testing.T) {
	cfg := rsaConfig()
	cfg.Resource = ""
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Resource is required") {
			t.Errorf("recovered %v, want the config error", r)
		}
	}()
	auth.MountMetadata(echo.New(), cfg)
}

func TestMetadataURL(t *testing.T) {
	tests := []struct{ resource, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.com/public/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"},
		{"https://mcp.example.com", "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com/", "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com:8443/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.com/mcp?tenant=a", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp?tenant=a"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"},
		{"http://localhost/mcp", "http://localhost/.well-known/oauth-protected-resource/mcp"},
	}
	for _, tc := range tests {
		got, err := auth.MetadataURL(tc.resource)
		if err != nil || got != tc.want {
			t.Errorf("MetadataURL(%q) = %q, %v; want %q", tc.resource, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "/mcp", "mcp.example.com/mcp", "http://mcp.example.com/mcp", "https://mcp.example.com/mcp#frag", "ftp://mcp.example.com"} {
		if got, err := auth.MetadataURL(bad); err == nil {
			t.Errorf("MetadataURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestMetadataValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(*auth.Metadata)
		want string
	}{
		{"no resource", func(m *auth.Metadata) { m.Resource = "" }, "resource is required"},
		{"http resource", func(m *auth.Metadata) { m.Resource = "http://mcp.example.com/mcp" }, "must use https"},
		{"fragment", func(m *auth.Metadata) { m.Resource = "https://mcp.example.com/mcp#x" }, "must not have a fragment"},
		{"no authorization server", func(m *auth.Metadata) { m.AuthorizationServers = nil }, "authorization_servers needs at least one"},
		{"query bearer method", func(m *auth.Metadata) { m.BearerMethodsSupported = []string{"header", "query"} }, `only "header" is supported`},
		{"bad documentation URL", func(m *auth.Metadata) { m.ResourceDocumentation = "docs" }, "resource_documentation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testMeta
			tc.edit(&m)
			err := m.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error with %q", err, tc.want)
			}
			defer func() {
				if r := recover(); fmt.Sprint(r) != err.Error() {
					t.Errorf("MetadataHandler panicked with %v, want %v", r, err)
				}
			}()
			auth.MetadataHandler(m)
		})
	}
}
