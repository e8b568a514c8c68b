package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/specter-mcp/specter/client/install"
)

func runInstall(_ context.Context, args []string, s streams) error {
	var t target
	var ids []string
	for _, c := range install.Clients {
		ids = append(ids, fmt.Sprintf("  %-15s %s", c.ID, c.Name))
	}
	fs := newFlags("install", "CLIENT NAME [flags] (--url URL | -- command args...)",
		"Install writes the server into a client's configuration file under NAME, in the\nfile and format the client reads on this system. Other entries stay as they were;\nthe old file is kept as FILE.bak. Clients:\n\n"+strings.Join(ids, "\n"), s.Err)
	t.register(fs, false)
	print := fs.Bool("print", false, "print the entry it would write, and write nothing")
	goos := fs.String("os", runtime.GOOS, "write where the client keeps its file on this `OS` (linux, darwin, windows), as for a home shared with another system")
	pos, cmd, err := parse(fs, args)
	if err != nil {
		return err
	}
	t.command = cmd
	if len(pos) != 2 {
		return &exitError{code: 2, msg: "name the client and the server: specter install CLIENT NAME ..."}
	}
	client, ok := install.Lookup(pos[0])
	if !ok {
		return &exitError{code: 2, msg: fmt.Sprintf("unknown client %q; one of:\n%s", pos[0], strings.Join(ids, "\n"))}
	}
	if err := t.check(); err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	srv := install.Server{Name: pos[1], URL: t.url, Headers: t.headers.mapped(), Env: t.env.mapped()}
	if len(t.command) > 0 {
		srv.Command, srv.Args = resolve(t.command[0], *goos), t.command[1:]
	}
	if *print {
		entry, err := client.Entry(srv)
		if err != nil {
			return err
		}
		return printJSON(s.Out, map[string]any{client.Key: map[string]any{srv.Name: entry}})
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	path, backup, err := client.Install(install.LayoutFor(*goos, home, os.Getenv), srv)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Installed %s in %s: %s\n", srv.Name, client.Name, path)
	if backup != "" {
		fmt.Fprintf(s.Out, "The previous file is %s\n", backup)
	}
	fmt.Fprintln(s.Out, client.Note)
	return nil
}

// resolve makes the server's command one the client can start from any
// directory: a relative path becomes absolute, and a bare name is looked
// up on this PATH when the file is for this system.
func resolve(command, goos string) string {
	if strings.ContainsRune(command, os.PathSeparator) || strings.ContainsRune(command, '/') {
		if abs, err := filepath.Abs(command); err == nil {
			return abs
		}
		return command
	}
	if goos == runtime.GOOS {
		if p, err := exec.LookPath(command); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return command
}
