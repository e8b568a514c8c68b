package appview

import (
	"strings"
	"testing"
)

// The script goes inline in a page: it must not end its own element, and
// it defines McpApp with the handshake and the calls a view needs.
func TestScriptTag(t *testing.T) {
	tag := string(ScriptTag())
	if !strings.HasPrefix(tag, "<script>") || !strings.HasSuffix(tag, "</script>") || strings.Count(strings.ToLower(tag), "</script") != 1 {
		t.Errorf("ScriptTag is not one <script> element")
	}
	for _, want := range []string{"global.McpApp = McpApp", `"ui/initialize"`, `"ui/notifications/initialized"`,
		`"ui/notifications/tool-input"`, `"ui/notifications/tool-result"`, `"tools/call"`, `"2026-01-26"`} {
		if !strings.Contains(Script, want) {
			t.Errorf("the script lacks %s", want)
		}
	}
}
