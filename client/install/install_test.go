package install_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client/install"
)

func TestInstallMerges(t *testing.T) {
	home := t.TempDir()
	l := install.LayoutFor("linux", home, func(string) string { return "" })
	c, ok := install.Lookup("Cursor")
	if !ok {
		t.Fatal("no cursor")
	}
	path := c.Path(l)
	if path != filepath.Join(home, ".cursor", "mcp.json") {
		t.Fatalf("path %s", path)
	}

	// No file yet: one is made, with no backup.
	p, backup, err := c.Install(l, install.Server{Name: "a", Command: "/bin/a"})
	if err != nil || p != path || backup != "" {
		t.Fatalf("Install = %s, %q, %v", p, backup, err)
	}
	// A second server goes after the first; the first, installed again,
	// is replaced where it is.
	if _, _, err := c.Install(l, install.Server{Name: "b", URL: "http://b/mcp"}); err != nil {
		t.Fatal(err)
	}
	if _, backup, err = c.Install(l, install.Server{Name: "a", Command: "/bin/a2", Args: []string{"x"}}); err != nil || backup != path+".bak" {
		t.Fatalf("Install = %q, %v", backup, err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "mcpServers": {
    "a": {
      "args": [
        "x"
      ],
      "command": "/bin/a2"
    },
    "b": {
      "url": "http://b/mcp"
    }
  }
}
`
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
}

func TestInstallRefuses(t *testing.T) {
	home := t.TempDir()
	l := install.LayoutFor("darwin", home, os.Getenv)
	c, _ := install.Lookup("claude-code")
	for _, s := range []install.Server{
		{Command: "x"},
		{Name: "n"},
		{Name: "n", Command: "x", URL: "http://x"},
		{Name: "n", Command: "x", Headers: map[string]string{"A": "b"}},
		{Name: "n", URL: "http://x", Env: map[string]string{"A": "b"}},
	} {
		if _, _, err := c.Install(l, s); err == nil {
			t.Errorf("Install(%+v) succeeded", s)
		}
	}
	// A file that is not a JSON object is left alone.
	path := c.Path(l)
	for _, bad := range []string{`[1]`, `{"mcpServers": 3}`, `{"a": 1} {}`, `{`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := c.Install(l, install.Server{Name: "n", Command: "x"})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Install over %s: %v", bad, err)
		}
		if b, _ := os.ReadFile(path); string(b) != bad {
			t.Errorf("the file %s was changed to %s", bad, b)
		}
	}
}

func ExampleClient_Install() {
	l, err := install.CurrentLayout()
	if err != nil {
		return
	}
	c, _ := install.Lookup("vscode")
	path, backup, err := c.Install(l, install.Server{Name: "studies", URL: "http://localhost:8080/mcp"})
	_, _, _ = path, backup, err
}
