// Command specter is Specter's developer command. Each subcommand is one
// entry of the table below, in a file of its own.
//
// Usage:
//
//	specter <command> [arguments]
//	specter <command> --help
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is a subcommand: run gets the arguments after its name.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands are the subcommands, by name.
var commands = map[string]command{
	"openapi": {"serve an OpenAPI document's operations as an MCP server", runOpenAPI},
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand args name and returns the exit status.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "specter: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err := cmd.run(args[1:], stdout, stderr); err != nil {
		if err == errUsage {
			return 2
		}
		fmt.Fprintf(stderr, "specter %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// errUsage reports a usage error, after the subcommand printed its usage.
var errUsage = fmt.Errorf("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: specter <command> [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'specter <command> --help' for a command's options.")
}
