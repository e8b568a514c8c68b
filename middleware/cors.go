package middleware

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/jsonrpc"
)

// CORSConfig configures CORSWithConfig.
type CORSConfig struct {
	// Skipper skips CORS for a request when it returns true. Default: nil
	// (never skip).
	Skipper func(*http.Request) bool
	// AllowOrigins are the origins ("https://app.example.com", scheme and
	// host and port if not the default, no path) whose pages may call the
	// endpoint from a browser. List each one: there is no wildcard.
	// Required.
	AllowOrigins []string
	// AllowHeaders are request headers a page may send besides those of
	// MCP, which are always allowed: Authorization, Content-Type, Accept,
	// Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and the
	// 2026-07-28 Mcp-Method, Mcp-Name and Mcp-Param-*. Default: none.
	AllowHeaders []string
	// ExposeHeaders are response headers a page may read besides
	// Mcp-Session-Id and WWW-Authenticate, which are always exposed (a
	// session's id, and the challenge that starts OAuth discovery), for
	// example Retry-After. Default: none.
	ExposeHeaders []string
	// AllowCredentials lets pages send cookies and read the answers
	// (Access-Control-Allow-Credentials), for an endpoint whose
	// authentication is a session cookie. A bearer token in Authorization
	// needs no credentials. Default: false.
	AllowCredentials bool
	// MaxAge is how long a browser may keep a preflight's answer. Default:
	// DefaultCORSMaxAge; a negative value sends none.
	MaxAge time.Duration
}

// DefaultCORSMaxAge is how long browsers keep a preflight's answer by
// default.
const DefaultCORSMaxAge = 10 * time.Minute

// The methods of the MCP endpoint, and the headers of MCP requests and
// answers that CORS must name.
var (
	corsMethods       = []string{http.MethodPost, http.MethodGet, http.MethodDelete}
	corsRequestHeader = []string{"authorization", "content-type", "accept", "mcp-session-id", "mcp-protocol-version",
		"last-event-id", "mcp-method", "mcp-name"}
	corsParamPrefix    = "mcp-param-"
	corsExposedHeaders = []string{"Mcp-Session-Id", "WWW-Authenticate"}
)

// CORS lets pages on origins call an MCP endpoint from a browser: see
// CORSWithConfig.
func CORS(origins ...string) func(http.Handler) http.Handler {
	return CORSWithConfig(CORSConfig{AllowOrigins: origins})
}

// CORSWithConfig returns middleware that lets browser-based MCP clients
// on cfg.AllowOrigins call the endpoint (Cross-Origin Resource Sharing).
// It answers their preflights (OPTIONS) itself, allowing the methods and
// headers of MCP, and marks the answers to their requests readable,
// exposing Mcp-Session-Id and WWW-Authenticate. A preflight from another
// origin, or for another method or header, gets 403 with a JSON-RPC error
// saying what is not allowed.
//
// Put it first, before authentication: a preflight never carries
// credentials, and a 401 must carry CORS headers for a page to read its
// challenge. On Echo, put it first in the MCP group, where Router.Mount
// routes OPTIONS:
//
//	r.Mount(e.Group("/mcp", echo.WrapMiddleware(middleware.CORS("https://app.example.com")), auth.JWT(cfg)))
//
// The router's DNS-rebinding guard decides separately which origins may
// call at all: name the same origins in specter.AllowedOrigins. It panics
// if an origin is not an origin, so that a misconfigured server does not
// start.
func CORSWithConfig(cfg CORSConfig) func(http.Handler) http.Handler {
	origins, err := corsOrigins(cfg.AllowOrigins)
	if err != nil {
		panic(err)
	}
	extra := make([]string, len(cfg.AllowHeaders))
	for i, h := range cfg.AllowHeaders {
		extra[i] = strings.ToLower(strings.TrimSpace(h))
	}
	expose := strings.Join(append(slices.Clone(corsExposedHeaders), cfg.ExposeHeaders...), ", ")
	maxAge := ""
	switch {
	case cfg.MaxAge == 0:
		maxAge = strconv.Itoa(int(DefaultCORSMaxAge.Seconds()))
	case cfg.MaxAge > 0:
		maxAge = strconv.Itoa(int(cfg.MaxAge.Seconds()))
	}
	allowed := func(header string) bool {
		return slices.Contains(corsRequestHeader, header) || strings.HasPrefix(header, corsParamPrefix) || slices.Contains(extra, header)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "" || (cfg.Skipper != nil && cfg.Skipper(r)) {
				next.ServeHTTP(w, r)
				return
			}
			h := w.Header()
			h.Add("Vary", "Origin")
			listed := slices.ContainsFunc(origins, func(o string) bool { return strings.EqualFold(o, origin) })
			method := r.Header.Get("Access-Control-Request-Method")
			if r.Method != http.MethodOptions || method == "" {
				// A request itself: readable by a listed origin's page.
				if listed {
					h.Set("Access-Control-Allow-Origin", origin)
					h.Set("Access-Control-Expose-Headers", expose)
					if cfg.AllowCredentials {
						h.Set("Access-Control-Allow-Credentials", "true")
					}
				}
				next.ServeHTTP(w, r)
				return
			}
			// A preflight: answered here, never passed on.
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			var headers []string
			for _, list := range r.Header.Values("Access-Control-Request-Headers") {
				for _, name := range strings.Split(list, ",") {
					if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
						headers = append(headers, name)
					}
				}
			}
			switch bad := slices.IndexFunc(headers, func(h string) bool { return !allowed(h) }); {
			case !listed:
				corsRefuse(w, "origin %s may not call this endpoint from a browser", origin)
			case !slices.Contains(corsMethods, method):
				corsRefuse(w, "method %s is not one of this endpoint's (POST, GET, DELETE)", method)
			case bad >= 0:
				corsRefuse(w, "header %s is not one a page may send here", headers[bad])
			default:
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Methods", strings.Join(corsMethods, ", "))
				if len(headers) > 0 {
					h.Set("Access-Control-Allow-Headers", strings.Join(headers, ", "))
				}
				if cfg.AllowCredentials {
					h.Set("Access-Control-Allow-Credentials", "true")
				}
				if maxAge != "" {
					h.Set("Access-Control-Max-Age", maxAge)
				}
				w.WriteHeader(http.StatusNoContent)
			}
		})
	}
}

// corsRefuse answers a preflight that is not allowed: 403, without the
// headers that would allow it, and a JSON-RPC error saying why.
func corsRefuse(w http.ResponseWriter, format string, args ...any) {
	refusal.Write(w, nil, refusal.New(http.StatusForbidden, jsonrpc.CodeInvalidRequest, "Forbidden (CORS): "+format, args...))
}

// corsOrigins checks that each origin is scheme://host[:port] and nothing
// more, as browsers send it.
func corsOrigins(origins []string) ([]string, error) {
	if len(origins) == 0 {
		return nil, fmt.Errorf("middleware: CORS needs at least one origin in AllowOrigins")
	}
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil ||
			strings.HasSuffix(o, "/") {
			return nil, fmt.Errorf("middleware: CORS origin %q is not an origin: write scheme://host[:port], as in https://app.example.com", o)
		}
	}
	return slices.Clone(origins), nil
}
