package transport

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// refusingHost refuses every caller at connect with 401, and counts them.
type refusingHost struct{ connects atomic.Int32 }

func (h *refusingHost) Connect(w http.ResponseWriter, _ *http.Request, _ jsonrpc.ID, _ *mcp.ClientCapabilities) (string, bool) {
	h.connects.Add(1)
	w.WriteHeader(http.StatusUnauthorized)
	return "", false
}
func (*refusingHost) Principal(c string) string { return c }
func (*refusingHost) Holder(c string) string    { return c }
func (*refusingHost) Grant(c string) any        { return c }
func (*refusingHost) Dispatch(string, *session.Session, *stream.Stream, *jsonrpc.Message, *stateless.Call) {
	panic("dispatch after a refused connect")
}
func (*refusingHost) Refuse(string, *session.Session, *stream.Stream, *jsonrpc.Message, *jsonrpc.Error) {
}
func (*refusingHost) StartSession(string, *session.Session) (*mcp.InitializeResult, error) {
	panic("session after a refused connect")
}
func (*refusingHost) CheckParamHeaders(http.Header, string, string, json.RawMessage) *jsonrpc.Error {
	return nil
}
func (*refusingHost) ServeTask(http.ResponseWriter, string, *jsonrpc.Message, *stateless.Call, *stateless.Params) {
}

func TestServeHTTPRefusals(t *testing.T) {
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	tests := []struct {
		name, method, ctype, accept, body string
		status                            int
		connects                          int32
	}{
		{"method", http.MethodPut, "application/json", "application/json, text/event-stream", init, http.StatusMethodNotAllowed, 0},
		{"media type", http.MethodPost, "text/plain", "application/json, text/event-stream", init, http.StatusUnsupportedMediaType, 0},
		{"accept", http.MethodPost, "application/json", "application/json", init, http.StatusNotAcceptable, 0},
		{"too large", http.MethodPost, "application/json", "application/json, text/event-stream", init + strings.Repeat(" ", 100), http.StatusRequestEntityTooLarge, 0},
		{"parse error", http.MethodPost, "application/json", "application/json, text/event-stream", "{", http.StatusBadRequest, 0},
		{"GET without session", http.MethodGet, "", "text/event-stream", "", http.StatusBadRequest, 0},
		{"GET not a stream", http.MethodGet, "", "application/json", "", http.StatusNotAcceptable, 0},
		{"connect refuses", http.MethodPost, "application/json", "application/json, text/event-stream", init, http.StatusUnauthorized, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &refusingHost{}
			tr := New[string](Config{MaxBody: 100, Closing: new(atomic.Bool), Quotas: DefaultQuotas()}, h)
			req := httptest.NewRequest(tt.method, "/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			req.Header.Set("Accept", tt.accept)
			rec := httptest.NewRecorder()
			tr.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d (%s)", rec.Code, tt.status, rec.Body)
			}
			if got := h.connects.Load(); got != tt.connects {
				t.Errorf("connects = %d, want %d", got, tt.connects)
			}
		})
	}
}

func TestCallerKey(t *testing.T) {
	tests := []struct{ principal, ip, want string }{
		{"alice", "192.0.2.1", "principal:alice"},
		{"", "192.0.2.1", "ip:192.0.2.1"},
		{"", "::ffff:192.0.2.1", "ip:192.0.2.1"},
		{"", "2001:db8:1:2:3:4:5:6", "ip:2001:db8:1:2::/64"},
		{"", "fe80::1%eth0", "ip:fe80::/64"},
		{"", "not an address", "ip:not an address"},
		{"", "192.0.2.1:4711", "ip:192.0.2.1"},
		{"", "[2001:db8:1:2:3:4:5:6]:443", "ip:2001:db8:1:2::/64"},
		{"", "pipe:1", "ip:pipe"},
	}
	for _, tt := range tests {
		if got := CallerKey(tt.principal, tt.ip); got != tt.want {
			t.Errorf("CallerKey(%q, %q) = %q, want %q", tt.principal, tt.ip, got, tt.want)
		}
	}
}

func TestListenerFilter(t *testing.T) {
	l := &Listener{filter: mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}}}
	if !l.Wants(mcp.NotificationToolsChanged) || l.Wants(mcp.NotificationPromptsChanged) || l.Wants("other") {
		t.Error("Wants does not follow the filter")
	}
	if !l.Subscribed("file:///a") || l.Subscribed("file:///b") {
		t.Error("Subscribed does not follow the filter")
	}
}
