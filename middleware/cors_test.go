package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// corsDo sends a request with header through mw in front of okHandler on a
// real server and returns the answer.
func corsDo(t *testing.T, mw func(http.Handler) http.Handler, method string, header http.Header) *http.Response {
	t.Helper()
	srv := httptest.NewServer(mw(okHandler))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(method, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestCORSConfig(t *testing.T) {
	const page = "https://app.example.com"
	preflight := func(headers string) http.Header {
		return http.Header{"Origin": {page}, "Access-Control-Request-Method": {"GET"}, "Access-Control-Request-Headers": {headers}}
	}
	// Headers of the app's own, credentials and another max age.
	mw := CORSWithConfig(CORSConfig{AllowOrigins: []string{"HTTPS://App.Example.com"}, AllowHeaders: []string{"Traceparent"},
		ExposeHeaders: []string{"Retry-After"}, AllowCredentials: true, MaxAge: time.Hour})
	resp := corsDo(t, mw, http.MethodOptions, preflight("traceparent, mcp-param-tenant"))
	for name, want := range map[string]string{
		"Access-Control-Allow-Origin":      page,
		"Access-Control-Allow-Headers":     "traceparent, mcp-param-tenant",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Max-Age":           "3600",
	} {
		if got := resp.Header.Get(name); resp.StatusCode != http.StatusNoContent || got != want {
			t.Errorf("preflight: %d, %s %q, want %q", resp.StatusCode, name, got, want)
		}
	}
	resp = corsDo(t, mw, http.MethodGet, http.Header{"Origin": {page}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, WWW-Authenticate, Retry-After" ||
		resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("request: %d %v", resp.StatusCode, resp.Header)
	}
	// No max age; a skipped request gets no CORS at all.
	mw = CORSWithConfig(CORSConfig{AllowOrigins: []string{page}, MaxAge: -1, Skipper: func(r *http.Request) bool { return r.Method == http.MethodGet }})
	if resp := corsDo(t, mw, http.MethodOptions, preflight("authorization")); resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Max-Age") != "" {
		t.Errorf("preflight without max age: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := corsDo(t, mw, http.MethodGet, http.Header{"Origin": {page}}); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a skipped request: %v", resp.Header)
	}
	// An OPTIONS that is no preflight, and a request with no Origin, pass on.
	if resp := corsDo(t, CORS(page), http.MethodOptions, http.Header{"Origin": {page}}); resp.StatusCode != http.StatusOK {
		t.Errorf("an OPTIONS without Access-Control-Request-Method: %d", resp.StatusCode)
	}
	if resp := corsDo(t, CORS(page), http.MethodPost, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Vary") != "" {
		t.Errorf("a request without Origin: %d %v", resp.StatusCode, resp.Header)
	}
}

// A list that names no origin, or something else than an origin, stops the
// program at startup.
func TestCORSRefusesWhatIsNoOrigin(t *testing.T) {
	for _, origins := range [][]string{nil, {"*"}, {"app.example.com"}, {"https://app.example.com/"}, {"https://app.example.com/mcp"}, {"ftp://app.example.com"}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "middleware: CORS") {
					t.Errorf("CORS(%q) panicked with %v", origins, r)
				}
			}()
			CORS(origins...)
		}()
	}
}
