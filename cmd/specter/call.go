package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// session is a connected client with its console, shared by call, get
// and read.
type session struct {
	c       *client.Client
	console *console
	asJSON  bool
}

// open parses a call-like command line: its flags, the target, and the
// positional arguments, and connects with the console answering the
// server's requests.
func open(ctx context.Context, name, synopsis, about string, args []string, s streams, extra func(*target, *flag.FlagSet), check func(pos []string) string) (*session, []string, error) {
	var t target
	fs := newFlags(name, synopsis, about, s.Err)
	t.register(fs, true)
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	level := fs.String("log-level", "info", "the lowest `level` of server logs to show (debug, info, notice, warning, error…)")
	if extra != nil {
		extra(&t, fs)
	}
	pos, cmd, err := parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	t.command = cmd
	if msg := check(pos); msg != "" {
		return nil, nil, &exitError{code: 2, msg: msg}
	}
	con := newConsole(s)
	c, err := t.connect(ctx, s, client.Options{
		Elicitation: con.elicit,
		Sampling:    con.sample,
		OnLog:       con.log,
		LogLevel:    mcp.LoggingLevel(*level),
	})
	if err != nil {
		return nil, nil, err
	}
	return &session{c: c, console: con, asJSON: *asJSON}, pos, nil
}

// needName checks that the first positional argument names what.
func needName(what string) func([]string) string {
	return func(pos []string) string {
		if len(pos) == 0 {
			return "name " + what
		}
		return ""
	}
}

// close ends the session; a Ctrl-C that interrupted the command does not
// stop the goodbye.
func (ss *session) close(ctx context.Context) { _ = ss.c.Close(context.WithoutCancel(ctx)) }

func runCall(ctx context.Context, args []string, s streams) error {
	var rawArgs string
	var strs bool
	ss, pos, err := open(ctx, "call", "TOOL [key=value ...] [--args JSON] [flags] (--url URL | -- command args...)",
		"Call calls a tool and prints its result. Arguments are key=value (a value that\nparses as JSON is sent as JSON), or an object in --args, which key=value pairs\noverride. Progress shows as a bar and logs as they come; the server's questions\n(elicitation) and sampling requests are asked on the terminal. Ctrl-C cancels the\ncall at the server. The status is 1 when the tool reports an error (isError).",
		args, s, func(_ *target, fs *flag.FlagSet) {
			fs.StringVar(&rawArgs, "args", "", "the arguments as a JSON `object`")
			fs.BoolVar(&strs, "strings", false, "send every key=value value as a string")
		}, needName("the tool to call"))
	if err != nil {
		return err
	}
	defer ss.close(ctx)
	arguments := map[string]any{}
	if rawArgs != "" {
		if err := json.Unmarshal([]byte(rawArgs), &arguments); err != nil {
			return &exitError{code: 2, msg: "--args: " + err.Error()}
		}
	}
	kv, err := keyValues(pos[1:])
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	if !strs && len(kv) > 0 {
		if kv, err = typed(ctx, ss.c, pos[0], kv); err != nil {
			return err
		}
	}
	maps.Copy(arguments, kv)

	res, err := ss.c.CallTool(ctx, pos[0], arguments, client.WithProgress(ss.console.progress))
	ss.console.done()
	if err != nil {
		return err
	}
	if ss.asJSON {
		err = printJSON(s.Out, res)
	} else {
		out := s.Out
		if res.IsError {
			out = s.Err
		}
		err = printContent(out, res.Content, res.StructuredContent)
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return &exitError{code: 1, msg: "the tool reported an error"}
	}
	return nil
}

func runGet(ctx context.Context, args []string, s streams) error {
	ss, pos, err := open(ctx, "get", "PROMPT [key=value ...] [flags] (--url URL | -- command args...)",
		"Get gets a prompt with its arguments (key=value, strings) and prints its messages.", args, s, nil, needName("the prompt to get"))
	if err != nil {
		return err
	}
	defer ss.close(ctx)
	kv, err := keyValues(pos[1:])
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	strs := map[string]string{}
	for k, v := range kv {
		strs[k] = v.(string)
	}
	res, err := ss.c.GetPrompt(ctx, pos[0], strs)
	if err != nil {
		return err
	}
	if ss.asJSON {
		return printJSON(s.Out, res)
	}
	if res.Description != "" {
		fmt.Fprintf(s.Out, "# %s\n\n", res.Description)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(s.Out, "[%s]\n%s\n\n", m.Role, contentText(m.Content))
	}
	return nil
}

func runRead(ctx context.Context, args []string, s streams) error {
	ss, pos, err := open(ctx, "read", "URI [flags] (--url URL | -- command args...)",
		"Read reads a resource and prints its text (or, for a blob, its size and type).", args, s, nil,
		func(pos []string) string {
			if len(pos) != 1 {
				return "name one resource URI"
			}
			return ""
		})
	if err != nil {
		return err
	}
	defer ss.close(ctx)
	res, err := ss.c.ReadResource(ctx, pos[0])
	if err != nil {
		return err
	}
	if ss.asJSON {
		return printJSON(s.Out, res)
	}
	for _, rc := range res.Contents {
		if rc.Text != nil {
			fmt.Fprintln(s.Out, *rc.Text)
			continue
		}
		n := 0
		if rc.Blob != nil {
			n = len(*rc.Blob)
		}
		fmt.Fprintf(s.Out, "[%s: %s, %d bytes base64]\n", rc.URI, dash(rc.MIMEType), n)
	}
	return nil
}

// typed converts key=value arguments to the types of the tool's input
// schema: a string parameter stays a string even when it reads as a
// number, an integer must be one. A parameter the schema does not
// describe is JSON when it parses as JSON, else a string.
func typed(ctx context.Context, c *client.Client, tool string, kv map[string]any) (map[string]any, error) {
	var input *schema
	for t, err := range c.Tools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		if t.Name == tool {
			if input, err = parseSchema(t.InputSchema); err != nil {
				return nil, fmt.Errorf("the input schema of %s: %w", tool, err)
			}
			break
		}
	}
	out := make(map[string]any, len(kv))
	for k, v := range kv {
		text := v.(string)
		p := (*schema)(nil)
		if input != nil {
			p = input.Properties[k]
		}
		if p == nil {
			out[k] = jsonOrString(text)
			continue
		}
		conv, err := p.convert(text)
		if err != nil {
			return nil, &exitError{code: 2, msg: fmt.Sprintf("argument %s: %v", k, err)}
		}
		out[k] = conv
	}
	return out, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printContent writes a tool's content blocks, or its structured content
// when it has no blocks.
func printContent(w io.Writer, content []mcp.Content, structured json.RawMessage) error {
	if len(content) == 0 && len(structured) > 0 {
		_, err := fmt.Fprintln(w, string(structured))
		return err
	}
	for _, ct := range content {
		if _, err := fmt.Fprintln(w, contentText(ct)); err != nil {
			return err
		}
	}
	return nil
}
