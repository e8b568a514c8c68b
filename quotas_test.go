package specter

import (
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestHolder(t *testing.T) {
	trusting := echo.New()
	trusting.IPExtractor = echo.ExtractIPFromXFFHeader(echo.TrustLoopback(true))
	tests := []struct {
		name      string
		principal string
		remote    string
		xff       string
		e         *echo.Echo // mounted on this Echo, if set
		want      string
	}{
		{"principal", "alice", "192.0.2.1:1", "", nil, "principal:alice"},
		{"IPv4", "", "192.0.2.1:1234", "", nil, "ip:192.0.2.1"},
		{"IPv4 in IPv6", "", "[::ffff:192.0.2.1]:1234", "", nil, "ip:192.0.2.1"},
		{"IPv6 counts for its /64", "", "[2001:db8:1:2:3:4:5:6]:1234", "", nil, "ip:2001:db8:1:2::/64"},
		{"no port", "", "192.0.2.7", "", nil, "ip:192.0.2.7"},
		{"X-Forwarded-For is ignored without an IPExtractor", "", "127.0.0.1:1", "203.0.113.9", echo.New(), "ip:127.0.0.1"},
		{"the Echo's IPExtractor decides", "", "127.0.0.1:1", "203.0.113.9", trusting, "ip:203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", nil)
			req.RemoteAddr = tt.remote
			if tt.xff != "" {
				req.Header.Set("X-Forwarded-For", tt.xff)
			}
			c := &Context{http: req, grant: &grant{principal: tt.principal}}
			if tt.e != nil {
				c.echo = tt.e.NewContext(req, httptest.NewRecorder())
			}
			if got := (host{}).Holder(c); got != tt.want {
				t.Errorf("Holder() = %q, want %q", got, tt.want)
			}
		})
	}
}
