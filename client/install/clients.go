package install

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Server is an MCP server as a client's configuration names it: a URL
// for Streamable HTTP, or a command the client starts (stdio).
type Server struct {
	Name    string
	URL     string
	Headers map[string]string // with URL
	Command string
	Args    []string
	Env     map[string]string // with Command
}

// check says what is wrong with s.
func (s Server) check() error {
	switch {
	case s.Name == "":
		return fmt.Errorf("install: the server needs a name")
	case (s.URL == "") == (s.Command == ""):
		return fmt.Errorf("install: server %q needs a URL or a command, not both", s.Name)
	case s.URL != "" && len(s.Env) > 0:
		return fmt.Errorf("install: environment variables are for a command, not a URL")
	case s.Command != "" && len(s.Headers) > 0:
		return fmt.Errorf("install: headers are for a URL, not a command")
	}
	return nil
}

// Layout is where a user's files are: the operating system's
// conventions, the home directory, and the directory applications keep
// their settings in (~/.config or $XDG_CONFIG_HOME on Linux, ~/Library/
// Application Support on macOS, %APPDATA% on Windows).
type Layout struct {
	OS        string // as runtime.GOOS: linux, darwin, windows
	Home      string
	ConfigDir string
}

// LayoutFor is the layout of an OS for the home directory home, with
// environment variables read through getenv.
func LayoutFor(goos, home string, getenv func(string) string) Layout {
	l := Layout{OS: goos, Home: home}
	switch goos {
	case "windows":
		l.ConfigDir = getenv("APPDATA")
		if l.ConfigDir == "" {
			l.ConfigDir = filepath.Join(home, "AppData", "Roaming")
		}
	case "darwin":
		l.ConfigDir = filepath.Join(home, "Library", "Application Support")
	default:
		l.ConfigDir = getenv("XDG_CONFIG_HOME")
		if l.ConfigDir == "" || !filepath.IsAbs(l.ConfigDir) {
			l.ConfigDir = filepath.Join(home, ".config")
		}
	}
	return l
}

// CurrentLayout is the layout of this user on this system.
func CurrentLayout() (Layout, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Layout{}, fmt.Errorf("install: %w", err)
	}
	return LayoutFor(runtime.GOOS, home, os.Getenv), nil
}

// Client is an MCP client whose configuration file Install writes.
type Client struct {
	ID   string // as the command line names it
	Name string
	// Key is the member of the file's top-level object that holds the
	// servers by name.
	Key string
	// Note tells how the client takes what Install wrote, for the person
	// who runs it.
	Note  string
	path  func(Layout) string
	entry func(Server) map[string]any
}

// Path is where the client reads its servers from in layout l.
func (c *Client) Path(l Layout) string { return c.path(l) }

// Entry is the configuration entry of s in the client's format.
func (c *Client) Entry(s Server) (map[string]any, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return c.entry(s), nil
}

// stdio is the entry of a command in the common format (command, args,
// env), with a type member when typ is set.
func stdio(s Server, typ string) map[string]any {
	e := map[string]any{"command": s.Command, "args": nonNil(s.Args)}
	if typ != "" {
		e["type"] = typ
	}
	if len(s.Env) > 0 {
		e["env"] = s.Env
	}
	return e
}

// remote is the entry of a URL under urlKey, with a type member when typ
// is set.
func remote(s Server, urlKey, typ string) map[string]any {
	e := map[string]any{urlKey: s.URL}
	if typ != "" {
		e["type"] = typ
	}
	if len(s.Headers) > 0 {
		e["headers"] = s.Headers
	}
	return e
}

func nonNil(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}

// Clients are the clients Install knows, by ID.
var Clients = []*Client{
	{
		ID: "claude-desktop", Name: "Claude Desktop", Key: "mcpServers",
		Note: "Restart Claude Desktop. Its file takes commands only: a URL is reached through the mcp-remote bridge (npx).",
		path: func(l Layout) string { return filepath.Join(l.ConfigDir, "Claude", "claude_desktop_config.json") },
		entry: func(s Server) map[string]any {
			if s.URL == "" {
				return stdio(s, "")
			}
			args := []string{"-y", "mcp-remote", s.URL}
			for _, k := range sortedKeys(s.Headers) {
				args = append(args, "--header", k+":"+s.Headers[k])
			}
			return stdio(Server{Command: "npx", Args: args}, "")
		},
	},
	{
		ID: "claude-code", Name: "Claude Code", Key: "mcpServers",
		Note:  "User scope: the server is available in every project (claude mcp list shows it).",
		path:  func(l Layout) string { return filepath.Join(l.Home, ".claude.json") },
		entry: typed("url"),
	},
	{
		ID: "cursor", Name: "Cursor", Key: "mcpServers",
		Note:  "Global configuration: restart Cursor, or refresh in Settings → MCP.",
		path:  func(l Layout) string { return filepath.Join(l.Home, ".cursor", "mcp.json") },
		entry: untyped("url"),
	},
	{
		ID: "vscode", Name: "VS Code", Key: "servers",
		Note:  "User profile configuration (MCP: Open User Configuration shows it).",
		path:  func(l Layout) string { return filepath.Join(l.ConfigDir, "Code", "User", "mcp.json") },
		entry: typed("url"),
	},
	{
		ID: "windsurf", Name: "Windsurf", Key: "mcpServers",
		Note:  "Refresh the MCP servers in Windsurf's Cascade panel.",
		path:  func(l Layout) string { return filepath.Join(l.Home, ".codeium", "windsurf", "mcp_config.json") },
		entry: untyped("serverUrl"),
	},
	{
		ID: "gemini-cli", Name: "Gemini CLI", Key: "mcpServers",
		Note:  "User settings: gemini mcp list shows the server.",
		path:  func(l Layout) string { return filepath.Join(l.Home, ".gemini", "settings.json") },
		entry: untyped("httpUrl"),
	},
}

// typed is the format with a type member: stdio, or http with url.
func typed(urlKey string) func(Server) map[string]any {
	return func(s Server) map[string]any {
		if s.URL != "" {
			return remote(s, urlKey, "http")
		}
		return stdio(s, "stdio")
	}
}

// untyped is the format that tells a URL from a command by its members.
func untyped(urlKey string) func(Server) map[string]any {
	return func(s Server) map[string]any {
		if s.URL != "" {
			return remote(s, urlKey, "")
		}
		return stdio(s, "")
	}
}

// Lookup returns the client of an ID.
func Lookup(id string) (*Client, bool) {
	for _, c := range Clients {
		if c.ID == strings.ToLower(id) {
			return c, true
		}
	}
	return nil, false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
