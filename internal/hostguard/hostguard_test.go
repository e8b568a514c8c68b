package hostguard

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "ok")
})

// guardCase is one request to a guarded endpoint.
type guardCase struct {
	name   string
	host   string // "" keeps the server's own host:port
	origin string // "" sends no Origin
	path   string
	ok     bool
}

// runGuardCases sends each case to a loopback httptest server guarded by
// New(cfg).
func runGuardCases(t *testing.T, cfg Config, cases []guardCase) {
	t.Helper()
	srv := httptest.NewServer(New(cfg)(okHandler))
	defer srv.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok {
				if resp.StatusCode != http.StatusOK || string(body) != "ok" {
					t.Errorf("Host %q Origin %q: %d %s, want 200 ok", tc.host, tc.origin, resp.StatusCode, body)
				}
				return
			}
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("Host %q Origin %q: status %d (%s), want 403", tc.host, tc.origin, resp.StatusCode, body)
			}
			checkRefusal(t, resp.Header, body)
		})
	}
}

// checkRefusal checks a 403 body is a JSON-RPC error without an id.
func checkRefusal(t *testing.T, h http.Header, body []byte) string {
	t.Helper()
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("403 body is not JSON: %v: %s", err, body)
	}
	if _, ok := m["id"]; ok {
		t.Errorf("403 body has an id: %s", body)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Errorf("jsonrpc %s", m["jsonrpc"])
	}
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("error member: %v: %s", err, body)
	}
	if e.Code != -32600 {
		t.Errorf("code %d, want -32600", e.Code)
	}
	if !strings.HasPrefix(e.Message, "Forbidden: ") {
		t.Errorf("message %q", e.Message)
	}
	return e.Message
}

func TestHost(t *testing.T) {
	runGuardCases(t, Config{}, []guardCase{
		{name: "server address", ok: true},
		{name: "localhost", host: "localhost", ok: true},
		{name: "localhost with port", host: "localhost:8080", ok: true},
		{name: "localhost upper case", host: "LocalHost:1", ok: true},
		{name: "127.0.0.1", host: "127.0.0.1", ok: true},
		{name: "127.0.0.1 with port", host: "127.0.0.1:3000", ok: true},
		{name: "[::1]", host: "[::1]", ok: true},
		{name: "[::1] with port", host: "[::1]:9999", ok: true},
		{name: "evil host", host: "evil.example"},
		{name: "evil host with port", host: "evil.example:80"},
		{name: "localhost subdomain", host: "localhost.evil.example"},
		{name: "evil subdomain of localhost", host: "evil.localhost:80"},
		{name: "rebinding name", host: "127.0.0.1.nip.io"},
		{name: "other loopback ip", host: "127.0.0.2"},
		{name: "unspecified", host: "0.0.0.0:80"},
		{name: "ipv6 any", host: "[::]:80"},
	})
}

func TestOrigin(t *testing.T) {
	runGuardCases(t, Config{}, []guardCase{
		{name: "no origin", host: "localhost:1234", ok: true},
		{name: "same origin", host: "127.0.0.1:1234", origin: "http://127.0.0.1:1234", ok: true},
		{name: "same origin localhost", host: "localhost:1234", origin: "http://localhost:1234", ok: true},
		{name: "same origin https", host: "localhost:1234", origin: "https://localhost:1234", ok: true},
		{name: "same origin ipv6", host: "[::1]:5173", origin: "http://[::1]:5173", ok: true},
		{name: "origin upper case", host: "localhost:1234", origin: "HTTP://LOCALHOST:1234", ok: true},
		{name: "origin trailing slash", host: "localhost:1234", origin: "http://localhost:1234/", ok: true},
		// Issue 9 item 5: another local page (a dev server, another app)
		// is another origin, on any port.
		{name: "loopback origin other port", host: "localhost:1234", origin: "http://localhost:3000"},
		{name: "loopback origin default port", host: "localhost:1234", origin: "https://127.0.0.1"},
		{name: "ipv6 origin other port", host: "localhost:1234", origin: "http://[::1]:5173"},
		{name: "other loopback name, same port", host: "localhost:1234", origin: "http://127.0.0.1:1234", ok: true},
		{name: "other loopback name, same port ipv6", host: "127.0.0.1:1234", origin: "http://[::1]:1234", ok: true},
		{name: "other loopback name, other port", host: "localhost:1234", origin: "http://127.0.0.1:1235"},
		{name: "other loopback name, no port", host: "localhost", origin: "http://127.0.0.1"},
		{name: "null origin", host: "localhost:1234", origin: "null"},
		{name: "evil origin", host: "localhost:1234", origin: "http://evil.example"},
		{name: "evil origin https", host: "localhost:1234", origin: "https://evil.example:443"},
		{name: "localhost subdomain origin", host: "localhost:1234", origin: "http://localhost.evil.example"},
		{name: "userinfo trick", host: "localhost:1234", origin: "http://localhost@evil.example"},
		{name: "file scheme", host: "localhost:1234", origin: "file://localhost"},
		{name: "ws scheme", host: "localhost:1234", origin: "ws://localhost:1234"},
		{name: "no scheme", host: "localhost:1234", origin: "localhost:3000"},
		{name: "bare word", host: "localhost:1234", origin: "localhost"},
		{name: "quotes and backslash", host: "localhost:1234", origin: `http://evil.example/"}\`},
		{name: "evil host wins over good origin", host: "evil.example", origin: "http://localhost"},
	})
}

func TestAllowLists(t *testing.T) {
	t.Run("AllowedHosts", func(t *testing.T) {
		runGuardCases(t, Config{AllowedHosts: []string{"MyApp.Test", "[fe80::1]"}}, []guardCase{
			{name: "allowed host", host: "myapp.test", ok: true},
			{name: "allowed host with port", host: "myapp.test:8080", ok: true},
			{name: "allowed host upper case", host: "MYAPP.TEST", ok: true},
			{name: "allowed ipv6", host: "[fe80::1]:80", ok: true},
			{name: "defaults kept", host: "localhost", ok: true},
			{name: "allowed host same origin", host: "myapp.test:9000", origin: "https://myapp.test:9000", ok: true},
			{name: "allowed host, other origin", host: "localhost", origin: "https://myapp.test:9000"},
			{name: "other host", host: "other.test"},
			{name: "suffix of allowed", host: "evilmyapp.test"},
		})
	})
	t.Run("AllowedOrigins", func(t *testing.T) {
		runGuardCases(t, Config{AllowedOrigins: []string{"https://App.Example.com/", "chrome-extension://abcdef"}}, []guardCase{
			{name: "allowed", host: "localhost", origin: "https://app.example.com", ok: true},
			{name: "allowed trailing slash", host: "localhost", origin: "https://app.example.com/", ok: true},
			{name: "allowed other case", host: "localhost", origin: "HTTPS://APP.EXAMPLE.COM", ok: true},
			{name: "allowed non-http scheme", host: "localhost", origin: "chrome-extension://abcdef", ok: true},
			{name: "scheme differs", host: "localhost", origin: "http://app.example.com"},
			{name: "port differs", host: "localhost", origin: "https://app.example.com:8443"},
			{name: "subdomain", host: "localhost", origin: "https://evil.app.example.com"},
			{name: "origin does not allow the host", host: "app.example.com", origin: "https://app.example.com"},
		})
	})
	t.Run("Skipper", func(t *testing.T) {
		skip := func(r *http.Request) bool { return r.URL.Path == "/health" }
		runGuardCases(t, Config{Skipper: skip}, []guardCase{
			{name: "skipped", host: "evil.example", origin: "null", path: "/health", ok: true},
			{name: "not skipped", host: "evil.example", path: "/mcp"},
			{name: "not skipped origin", host: "localhost", origin: "null", path: "/mcp"},
		})
	})
}

// serveDirect calls the guard without a server, optionally with a local
// address in the context as net/http sets it.
func serveDirect(h http.Handler, local net.Addr, host, origin string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	req.Host = host
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if local != nil {
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestLocalAddress(t *testing.T) {
	public := &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 443}
	loopback6 := &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}
	unix := &net.UnixAddr{Name: "/tmp/mcp.sock", Net: "unix"}
	tests := []localCase{
		// Without LocalAddrContextKey the strict (loopback) rule applies.
		{"no addr example.com", nil, "example.com", "", false},
		{"no addr localhost", nil, "localhost:8080", "", true},
		{"no addr same origin", nil, "localhost:3000", "http://localhost:3000", true},
		{"no addr loopback origin", nil, "localhost", "http://127.0.0.1:3000", false},
		{"no addr evil origin", nil, "localhost", "http://evil.example", false},
		{"unix socket is strict", unix, "example.com", "", false},
		{"unix socket localhost", unix, "localhost", "", true},
		{"ipv6 loopback strict", loopback6, "example.com", "", false},
		{"ipv6 loopback localhost", loopback6, "[::1]:8080", "", true},

		// On a public address without AllowedHosts any Host passes, but a
		// browser's Origin must be listed: a rebinding page is same-origin
		// with its own name (issue 9 item 5).
		{"public any host", public, "api.example.com", "", true},
		{"public rebinding same origin", public, "api.example.com", "https://api.example.com", false},
		{"public rebinding same origin with port", public, "evil.example:8443", "https://evil.example:8443", false},
		{"public IP same origin", public, "203.0.113.7:8080", "http://203.0.113.7:8080", true},
		{"public cross origin", public, "api.example.com", "https://evil.example", false},
		{"public loopback origin", public, "api.example.com", "http://localhost:3000", false},
		{"public null origin", public, "api.example.com", "null", false},
		{"public allowed origin", public, "api.example.com", "https://app.example.com", true},
		{"public loopback host", public, "localhost", "", true},
		{"public loopback same origin", public, "localhost:8080", "http://localhost:8080", false},
	}
	h := New(Config{AllowedOrigins: []string{"https://app.example.com"}})(okHandler)
	run(t, h, tests)

	// With AllowedHosts, a public address checks Host too, and same-origin
	// requests pass on the listed names.
	listed := New(Config{AllowedHosts: []string{"api.example.com"}, AllowedOrigins: []string{"https://app.example.com"}})(okHandler)
	run(t, listed, []localCase{
		{"listed host", public, "api.example.com:443", "", true},
		{"listed same origin", public, "api.example.com", "https://api.example.com", true},
		{"listed same origin with port", public, "api.example.com:8443", "https://api.example.com:8443", true},
		{"unlisted host", public, "evil.example", "", false},
		{"unlisted same origin", public, "evil.example", "https://evil.example", false},
		{"IP host", public, "203.0.113.7", "", true},
		{"loopback name on a public address", public, "localhost", "", false},
		{"listed host, other origin", public, "api.example.com", "https://evil.example", false},
		{"listed host, allowed origin", public, "api.example.com", "https://app.example.com", true},
		{"loopback address still strict", loopback6, "evil.example", "", false},
		{"loopback address listed", loopback6, "api.example.com", "", true},
	})
}

// localCase is one request on a given local address.
type localCase struct {
	name   string
	local  net.Addr
	host   string
	origin string
	ok     bool
}

func run(t *testing.T, h http.Handler, tests []localCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serveDirect(h, tt.local, tt.host, tt.origin)
			if tt.ok {
				if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
					t.Errorf("%d %s, want 200 ok", rec.Code, rec.Body)
				}
				return
			}
			if rec.Code != http.StatusForbidden {
				t.Fatalf("status %d, want 403", rec.Code)
			}
			checkRefusal(t, rec.Header(), rec.Body.Bytes())
		})
	}
}

func TestRefusalMessage(t *testing.T) {
	h := New(Config{})(okHandler)
	tests := []struct {
		name, host, origin string
		want               []string
	}{
		{"host named", "evil.example:80", "", []string{"Host", "evil.example:80", "not allowed"}},
		{"origin named", "localhost", "http://evil.example", []string{"Origin", "http://evil.example", "not allowed"}},
		{"long host cut", strings.Repeat("a", 300) + ".example", "", []string{"Host", strings.Repeat("a", 50), "…"}},
		{"escaping", "localhost", "http://x.example/\"\\\t", []string{"Origin", "http://x.example/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serveDirect(h, nil, tt.host, tt.origin)
			if rec.Code != http.StatusForbidden {
				t.Fatalf("status %d", rec.Code)
			}
			msg := checkRefusal(t, rec.Header(), rec.Body.Bytes())
			for _, s := range tt.want {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not contain %q", msg, s)
				}
			}
			if len(msg) > 200 {
				t.Errorf("message is %d bytes long", len(msg))
			}
		})
	}
}

func TestMessageQuotesTheHost(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "http://evil.example:80/mcp", nil)
	New(Config{})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("reached the handler") })).ServeHTTP(rec, req)
	if want := `"message":"Forbidden: Host \"evil.example:80\" is not allowed"`; !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("body %s lacks %s", rec.Body, want)
	}
}
