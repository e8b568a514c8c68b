package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientFile is where a client keeps its servers on an OS, with home
// the home directory, xdg $XDG_CONFIG_HOME and appdata %APPDATA%, as
// each client documents it; and the member holding the servers.
func clientFile(client, goos, home, xdg, appdata string) (path, key string) {
	config := map[string]string{
		"linux":   xdg,
		"darwin":  filepath.Join(home, "Library", "Application Support"),
		"windows": appdata,
	}[goos]
	switch client {
	case "claude-desktop":
		return filepath.Join(config, "Claude", "claude_desktop_config.json"), "mcpServers"
	case "claude-code":
		return filepath.Join(home, ".claude.json"), "mcpServers"
	case "cursor":
		return filepath.Join(home, ".cursor", "mcp.json"), "mcpServers"
	case "vscode":
		return filepath.Join(config, "Code", "User", "mcp.json"), "servers"
	case "windsurf":
		return filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), "mcpServers"
	case "gemini-cli":
		return filepath.Join(home, ".gemini", "settings.json"), "mcpServers"
	}
	panic(client)
}

var installClients = []string{"claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini-cli"}

// TestInstall writes the example app into each client's configuration,
// in the file each client reads on Linux, macOS and Windows (a
// temporary home, $XDG_CONFIG_HOME and %APPDATA%): the other members and
// servers of an existing file stay, in order, a backup keeps the old
// file, and --print writes nothing. The stdio entry each client got is
// then started through the official Go SDK's CommandTransport.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built command")
	}
	for _, client := range installClients {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			t.Run(client+"/"+goos, func(t *testing.T) {
				home := t.TempDir()
				xdg, appdata := filepath.Join(home, "xdg"), filepath.Join(home, "AppData", "Roaming", "x")
				env := func() []string {
					return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+xdg, "APPDATA="+appdata)
				}
				path, key := clientFile(client, goos, home, xdg, appdata)

				// --print shows the entry and writes nothing.
				r := runIn(t, env(), "install", client, "studies", "--os", goos, "--print", "--env", "SPECTER_USER=ultra", "--", appBin, "-stdio")
				if r.code != 0 {
					t.Fatalf("install --print exited %d: %s", r.code, r.stderr)
				}
				var printed map[string]map[string]json.RawMessage
				if err := json.Unmarshal([]byte(r.stdout), &printed); err != nil || printed[key]["studies"] == nil {
					t.Fatalf("install --print printed %q (%v), want {%q: {studies: ...}}", r.stdout, err, key)
				}
				if files := filesUnder(t, home); len(files) > 0 {
					t.Fatalf("install --print wrote %v", files)
				}

				// An existing file keeps its other members and servers.
				old := `{"theme": "dark", "` + key + `": {"other": {"command": "other-server", "args": []}}, "zzz": [1, 2]}`
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
					t.Fatal(err)
				}
				r = runIn(t, env(), "install", client, "studies", "--os", goos, "--env", "SPECTER_USER=ultra", "--", appBin, "-stdio")
				if r.code != 0 || !strings.Contains(r.stdout, path) {
					t.Fatalf("install exited %d, printed %q (want the path %s): %s", r.code, r.stdout, path, r.stderr)
				}
				if b, err := os.ReadFile(path + ".bak"); err != nil || string(b) != old {
					t.Errorf("backup %q (%v), want the old file", b, err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if keys := topKeys(t, data); !slices.Equal(keys, []string{"theme", key, "zzz"}) {
					t.Errorf("members %v, want theme, %s, zzz in their order", keys, key)
				}
				var file map[string]json.RawMessage
				if err := json.Unmarshal(data, &file); err != nil {
					t.Fatal(err)
				}
				var servers map[string]map[string]any
				if err := json.Unmarshal(file[key], &servers); err != nil {
					t.Fatal(err)
				}
				if servers["other"]["command"] != "other-server" || string(file["theme"]) != `"dark"` {
					t.Errorf("the other entries changed:\n%s", data)
				}
				entry := servers["studies"]
				if !bytes.Equal(mustJSON(t, entry), mustJSON(t, printedEntry(t, printed[key]["studies"]))) {
					t.Errorf("installed %v, but --print showed %s", entry, printed[key]["studies"])
				}
				wantType := map[string]any{"claude-code": "stdio", "vscode": "stdio"}[client]
				if entry["type"] != wantType {
					t.Errorf("type %v, want %v", entry["type"], wantType)
				}
				if goos == "linux" {
					startWithGoSDK(t, entry)
				}

				// A URL entry in the client's format.
				r = runIn(t, env(), "install", client, "remote", "--os", goos, "--url", "https://mcp.example.com/mcp", "--header", "Authorization=Bearer t0k")
				if r.code != 0 {
					t.Fatalf("install --url exited %d: %s", r.code, r.stderr)
				}
				data, _ = os.ReadFile(path)
				_ = json.Unmarshal(data, &file)
				_ = json.Unmarshal(file[key], &servers)
				checkRemote(t, client, servers["remote"])
				if servers["studies"] == nil || servers["other"] == nil {
					t.Errorf("the second install lost a server:\n%s", data)
				}
			})
		}
	}
}

// checkRemote checks a URL entry against the client's format.
func checkRemote(t *testing.T, client string, e map[string]any) {
	t.Helper()
	const url = "https://mcp.example.com/mcp"
	headers := map[string]any{"Authorization": "Bearer t0k"}
	want := map[string]map[string]any{
		"claude-code":    {"type": "http", "url": url, "headers": headers},
		"vscode":         {"type": "http", "url": url, "headers": headers},
		"cursor":         {"url": url, "headers": headers},
		"windsurf":       {"serverUrl": url, "headers": headers},
		"gemini-cli":     {"httpUrl": url, "headers": headers},
		"claude-desktop": {"command": "npx", "args": []any{"-y", "mcp-remote", url, "--header", "Authorization:Bearer t0k"}},
	}[client]
	if !bytes.Equal(mustJSON(t, e), mustJSON(t, want)) {
		t.Errorf("URL entry %s, want %s", mustJSON(t, e), mustJSON(t, want))
	}
}

// startWithGoSDK starts the server of a stdio entry through the official
// Go SDK and lists its tools.
func startWithGoSDK(t *testing.T, entry map[string]any) {
	t.Helper()
	command, _ := entry["command"].(string)
	var args []string
	for _, a := range entry["args"].([]any) {
		args = append(args, a.(string))
	}
	cmd := exec.Command(command, args...)
	cmd.Env = os.Environ()
	for k, v := range entry["env"].(map[string]any) {
		cmd.Env = append(cmd.Env, k+"="+v.(string))
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "install-test", Version: "1.0.0"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("the Go SDK could not start %s %v: %v", command, args, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "long_task") {
		t.Errorf("tools %v: the entry's env (SPECTER_USER=ultra) did not reach the server", names)
	}
}

// runIn runs the command with exactly the environment env.
func runIn(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(specterBin, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	return result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

func filesUnder(t *testing.T, dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func topKeys(t *testing.T, data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func printedEntry(t *testing.T, raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
