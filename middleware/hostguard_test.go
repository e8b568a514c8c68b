package middleware

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "ok")
})

// The guard's rules are tested in internal/hostguard; this checks that
// both constructors run it with their config.
func TestHostGuardWrappers(t *testing.T) {
	tests := []struct {
		name  string
		guard func(http.Handler) http.Handler
		host  string
		want  int
	}{
		{"default loopback host", HostGuard(), "localhost:8080", http.StatusOK},
		{"default foreign host", HostGuard(), "evil.example", http.StatusForbidden},
		{"allowed host", HostGuardWithConfig(HostGuardConfig{AllowedHosts: []string{"myapp.test"}}), "myapp.test", http.StatusOK},
		{"skipped", HostGuardWithConfig(HostGuardConfig{Skipper: func(*http.Request) bool { return true }}), "evil.example", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Host = tt.host
			rec := httptest.NewRecorder()
			tt.guard(okHandler).ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("status %d, want %d", rec.Code, tt.want)
			}
		})
	}
}
