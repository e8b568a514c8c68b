// Package install writes an MCP server into the configuration file of a
// desktop or command-line MCP client (Claude Desktop, Claude Code,
// Cursor, VS Code, Windsurf, Gemini CLI), in the file and format each
// client reads on Linux, macOS and Windows.
//
// Install keeps everything else in the file as it was, in its order,
// replaces an entry of the same name, and copies the file to a backup
// first:
//
//	l, _ := install.CurrentLayout()
//	c, _ := install.Lookup("cursor")
//	path, backup, err := c.Install(l, install.Server{Name: "studies", URL: "http://localhost:8080/mcp"})
package install
