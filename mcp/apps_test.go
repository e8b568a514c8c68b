package mcp

import (
	"encoding/json"
	"testing"
)

func TestToolUI(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta string
		want *UIToolMeta
	}{
		{"none", `{"other":1}`, nil},
		{"nested", `{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`, &UIToolMeta{ResourceURI: "ui://a", Visibility: []UIVisibility{VisibilityApp}}},
		{"legacy only", `{"ui/resourceUri":"ui://old"}`, &UIToolMeta{ResourceURI: "ui://old"}},
		{"nested wins", `{"ui":{"resourceUri":"ui://new"},"ui/resourceUri":"ui://old"}`, &UIToolMeta{ResourceURI: "ui://new"}},
		{"visibility only", `{"ui":{"visibility":["model"]}}`, &UIToolMeta{Visibility: []UIVisibility{VisibilityModel}}},
	} {
		var meta Meta
		if err := json.Unmarshal([]byte(tc.meta), &meta); err != nil {
			t.Fatal(err)
		}
		got := ToolUI(meta)
		if g, w := mustJSON(t, got), mustJSON(t, tc.want); g != w {
			t.Errorf("%s: ToolUI = %s, want %s", tc.name, g, w)
		}
	}
	// A server's own values read the same as decoded ones.
	typed := ToolUI(Meta{MetaUI: UIToolMeta{ResourceURI: "ui://t"}})
	if typed == nil || typed.ResourceURI != "ui://t" || !typed.VisibleTo(VisibilityModel) || !typed.VisibleTo(VisibilityApp) {
		t.Errorf("typed ToolUI = %+v", typed)
	}
	if (&UIToolMeta{Visibility: []UIVisibility{VisibilityApp}}).VisibleTo(VisibilityModel) {
		t.Error("an app-only tool is visible to the model")
	}
}

func TestUIPermissionsJSON(t *testing.T) {
	b, err := json.Marshal(UIResourceMeta{Permissions: &UIPermissions{Camera: true, ClipboardWrite: true}})
	if err != nil || string(b) != `{"permissions":{"camera":{},"clipboardWrite":{}}}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var m UIResourceMeta
	if err := json.Unmarshal([]byte(`{"permissions":{"microphone":{},"geolocation":{}}}`), &m); err != nil ||
		*m.Permissions != (UIPermissions{Microphone: true, Geolocation: true}) {
		t.Errorf("unmarshal = %+v, %v", m.Permissions, err)
	}
}

func TestSupportsUI(t *testing.T) {
	for caps, want := range map[string]bool{
		`{}`: false,
		`{"extensions":{"io.modelcontextprotocol/ui":{}}}`:                                              false,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list"]}}}`:                 false,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":"text/html;profile=mcp-app"}}}`:       false,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["x","text/html;profile=mcp-app"]}}}`: true,
	} {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(caps), &c); err != nil {
			t.Fatal(err)
		}
		if got := c.SupportsUI(); got != want {
			t.Errorf("%s: SupportsUI = %v", caps, got)
		}
	}
	if (*ClientCapabilities)(nil).SupportsUI() {
		t.Error("no capabilities support UI")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
