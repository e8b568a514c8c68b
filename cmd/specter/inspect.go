package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/inspector"
	"github.com/specter-mcp/specter/mcp"
)

func runInspect(ctx context.Context, args []string, s streams) error {
	var t target
	fs := newFlags("inspect", "[flags] (--url URL | -- command args...)",
		"Inspect prints a server's info, the negotiated protocol and era, its capabilities,\nand tables of its tools (with their parameters), prompts, resources and templates.\nWith --web it serves a web inspector of the server instead, until Ctrl-C.", s.Err)
	t.register(fs, true)
	asJSON := fs.Bool("json", false, "print one JSON object with every list whole, for scripts")
	web := fs.Bool("web", false, "serve the web inspector (browse, call tools with forms, answer elicitations, render UI resources, switch eras)")
	addr := fs.String("addr", "127.0.0.1:0", "with --web, the `address` the inspector listens on")
	open := fs.Bool("open", true, "with --web, open the inspector in the browser")
	pos, cmd, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return &exitError{code: 2, msg: fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	t.command = cmd
	if *web {
		return runWeb(ctx, &t, *addr, *open, s)
	}
	c, err := t.connect(ctx, s, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	inv, err := inspector.Collect(ctx, c)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(inv)
	}
	return printInventory(s.Out, inv)
}

// printInventory writes inv for a person to read.
func printInventory(w io.Writer, inv *inspector.Inventory) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Server\t%s %s\n", inv.ServerInfo.Name, inv.ServerInfo.Version)
	if inv.ServerInfo.Title != "" {
		fmt.Fprintf(tw, "Title\t%s\n", inv.ServerInfo.Title)
	}
	fmt.Fprintf(tw, "Protocol\t%s (%s era)\n", inv.ProtocolVersion, inv.Era)
	fmt.Fprintf(tw, "Capabilities\t%s\n", capabilityList(inv.Capabilities))
	if inv.Instructions != "" {
		fmt.Fprintf(tw, "Instructions\t%s\n", oneLine(inv.Instructions, 100))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	section(w, "Tools", len(inv.Tools))
	table(w, []string{"NAME", "PARAMETERS", "DESCRIPTION"}, len(inv.Tools), func(i int) []string {
		tool := inv.Tools[i]
		return []string{tool.Name, parameterList(tool.InputSchema), oneLine(tool.Description, 60)}
	})
	section(w, "Prompts", len(inv.Prompts))
	table(w, []string{"NAME", "ARGUMENTS", "DESCRIPTION"}, len(inv.Prompts), func(i int) []string {
		p := inv.Prompts[i]
		var as []string
		for _, a := range p.Arguments {
			if a.Required {
				as = append(as, a.Name+"*")
			} else {
				as = append(as, a.Name)
			}
		}
		return []string{p.Name, dash(strings.Join(as, ", ")), oneLine(p.Description, 60)}
	})
	section(w, "Resources", len(inv.Resources))
	table(w, []string{"URI", "NAME", "MIME TYPE"}, len(inv.Resources), func(i int) []string {
		r := inv.Resources[i]
		return []string{r.URI, r.Name, dash(r.MIMEType)}
	})
	section(w, "Resource templates", len(inv.ResourceTemplates))
	return table(w, []string{"URI TEMPLATE", "NAME", "MIME TYPE"}, len(inv.ResourceTemplates), func(i int) []string {
		r := inv.ResourceTemplates[i]
		return []string{r.URITemplate, r.Name, dash(r.MIMEType)}
	})
}

func section(w io.Writer, title string, n int) {
	fmt.Fprintf(w, "\n%s (%d)\n", title, n)
}

// table writes n rows under head, or "(none)".
func table(w io.Writer, head []string, n int, row func(int) []string) error {
	if n == 0 {
		_, err := fmt.Fprintln(w, "  (none)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  %s\n", strings.Join(head, "\t"))
	for i := range n {
		fmt.Fprintf(tw, "  %s\n", strings.Join(row(i), "\t"))
	}
	return tw.Flush()
}

// capabilityList names the server's capabilities in a line.
func capabilityList(c mcp.ServerCapabilities) string {
	var names []string
	add := func(on bool, name string) {
		if on {
			names = append(names, name)
		}
	}
	add(c.Tools != nil, "tools")
	add(c.Prompts != nil, "prompts")
	if c.Resources != nil {
		name := "resources"
		if c.Resources.Subscribe {
			name += " (subscribe)"
		}
		names = append(names, name)
	}
	add(c.Logging != nil, "logging")
	add(c.Completions != nil, "completions")
	add(len(c.Tasks) > 0, "tasks")
	names = append(names, slices.Sorted(maps.Keys(c.Extensions))...)
	for _, id := range slices.Sorted(maps.Keys(c.Experimental)) {
		names = append(names, "experimental "+id)
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// parameterList describes a tool's parameters from its input schema:
// name:type, a star for required ones.
func parameterList(schema json.RawMessage) string {
	s, err := parseSchema(schema)
	if err != nil || len(s.order) == 0 {
		return "-"
	}
	var ps []string
	for _, name := range s.order {
		p := s.Properties[name]
		item := name + ":" + p.typeName()
		if s.required(name) {
			item += "*"
		}
		ps = append(ps, item)
	}
	return strings.Join(ps, " ")
}

// oneLine shortens s to its first line, at most n runes.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return dash(s)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
