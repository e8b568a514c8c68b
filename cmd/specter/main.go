// Command specter is the developer's tool for MCP servers, Specter's or
// anyone's: it inspects a server, calls its tools, reads its prompts and
// resources, and writes it into the configuration of desktop clients.
//
//	go install github.com/specter-mcp/specter/cmd/specter@latest
//
// A server is named the same way in every subcommand: --url for
// Streamable HTTP, or last, after --, the command that runs a stdio
// server:
//
//	specter inspect --url http://localhost:8080/mcp
//	specter call get_study id=042 -- go run ./example_app -stdio
//
// Run specter help, or any subcommand with --help, for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// streams are a command's standard streams.
type streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// command is one subcommand: its summary for the top-level help and the
// function that runs it with the arguments after its name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, s streams) error
}

// commands is the dispatch table. Each subcommand lives in a file of its
// own, named for it.
var commands = map[string]command{
	"inspect": {"show a server's info, capabilities, tools, prompts and resources (--web: in a browser)", runInspect},
	"call":    {"call a tool, with progress, logs, elicitation and sampling on the terminal", runCall},
	"get":     {"get a prompt", runGet},
	"read":    {"read a resource", runRead},
	"install": {"write a server into the configuration of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf or Gemini CLI", runInstall},
	"openapi": {"serve an OpenAPI document's operations as an MCP server", runOpenAPI},
}

// exitError ends the process with a status of its own, after printing
// its message when it has one.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	// The first Ctrl-C cancels what is running (a tool call is cancelled
	// on the wire); a second one kills the process the default way.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the exit status.
func run(ctx context.Context, args []string, s streams) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, s)
		}
		usage(s.Err)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(s.Err, "specter: unknown command %q\n\n", args[0])
		usage(s.Err)
		return 2
	}
	err := cmd.run(ctx, args[1:], s)
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(s.Err, "specter %s: %s\n", args[0], ee.msg)
		}
		return ee.code
	case errors.Is(err, errUsage):
		return 2
	case ctx.Err() != nil:
		fmt.Fprintf(s.Err, "specter %s: interrupted\n", args[0])
		return 130
	default:
		fmt.Fprintf(s.Err, "specter %s: %v\n", args[0], err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, "specter is a tool for MCP servers.\n\nUsage:\n\n  specter <command> [flags] [arguments]\n\nCommands:\n\n")
	for _, name := range sortedCommands() {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprint(w, "\nA server is named by --url URL (Streamable HTTP) or, last, by\n-- command args... (a stdio server the command starts).\nRun specter <command> --help for a command's flags.\n")
}
