package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// console is where a call meets the person running it: progress and logs
// go to w (a bar that redraws in place on a terminal, lines otherwise),
// and elicitation and sampling are asked and answered on in.
type console struct {
	w   io.Writer
	tty bool

	mu  sync.Mutex
	bar string // the progress bar on screen, redrawn after other output

	in    io.Reader
	once  sync.Once
	lines chan string // lines read from in; closed at its end
}

func newConsole(s streams) *console {
	return &console{w: s.Err, tty: isTerminal(s.Err), in: s.In}
}

// isTerminal says whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// printf writes a line above the progress bar.
func (c *console) printf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearBar()
	fmt.Fprintf(c.w, format, args...)
	c.drawBar()
}

func (c *console) clearBar() {
	if c.tty && c.bar != "" {
		fmt.Fprint(c.w, "\r\x1b[2K")
	}
}

func (c *console) drawBar() {
	if c.tty && c.bar != "" {
		fmt.Fprint(c.w, c.bar)
	}
}

// done takes the progress bar off the screen.
func (c *console) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearBar()
	c.bar = ""
}

// progress shows a progress notification: a bar on a terminal, else a
// line.
func (c *console) progress(p mcp.ProgressParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	amount := fmt.Sprintf("%g", p.Progress)
	frac := -1.0
	if p.Total != nil && *p.Total > 0 {
		amount += fmt.Sprintf("/%g", *p.Total)
		frac = min(p.Progress / *p.Total, 1)
	}
	if !c.tty {
		fmt.Fprintf(c.w, "progress %s %s\n", amount, p.Message)
		return
	}
	const width = 30
	bar := strings.Repeat("░", width)
	if frac >= 0 {
		n := int(frac * width)
		bar = strings.Repeat("█", n) + strings.Repeat("░", width-n)
	}
	c.clearBar()
	c.bar = fmt.Sprintf("[%s] %s %s", bar, amount, p.Message)
	c.drawBar()
}

// log shows a log message from the server.
func (c *console) log(p mcp.LoggingMessageParams) {
	data, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		data = string(b)
	}
	logger := ""
	if p.Logger != "" {
		logger = " " + p.Logger + ":"
	}
	c.printf("%s%s %s\n", strings.ToUpper(string(p.Level)), logger, data)
}

// readLine reads the person's next line; io.EOF when the input ends.
func (c *console) readLine(ctx context.Context) (string, error) {
	c.once.Do(func() {
		c.lines = make(chan string)
		go func() {
			defer close(c.lines)
			sc := bufio.NewScanner(c.in)
			for sc.Scan() {
				c.lines <- strings.TrimRight(sc.Text(), "\r")
			}
		}()
	})
	select {
	case l, ok := <-c.lines:
		if !ok {
			return "", io.EOF
		}
		return l, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// ask prints prompt and reads the answer.
func (c *console) ask(ctx context.Context, prompt string) (string, error) {
	c.printf("%s", prompt)
	return c.readLine(ctx)
}

// elicit answers an elicitation request with a form built from its
// requested schema: each field asked in turn, with its default, checked
// against its schema and asked again until valid; end of input cancels.
func (c *console) elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	c.printf("\nThe server asks: %s\n", p.Message)
	if p.Mode == "url" {
		c.printf("It asks you to open %s\n", p.URL)
		ans, err := c.ask(ctx, "Open it and continue? [y/N] ")
		if err != nil || !yes(ans) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	s, err := parseSchema(p.RequestedSchema)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestedSchema: " + err.Error()}
	}
	for {
		ans, err := c.ask(ctx, "Answer? [A]ccept, [d]ecline, [c]ancel: ")
		if errors.Is(err, io.EOF) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(strings.TrimSpace(ans)) {
		case "", "a", "accept":
		case "d", "decline":
			return &mcp.ElicitResult{Action: "decline"}, nil
		case "c", "cancel":
			return &mcp.ElicitResult{Action: "cancel"}, nil
		default:
			continue
		}
		break
	}
	content := map[string]any{}
	for _, name := range s.order {
		v, ok, err := c.field(ctx, name, s.Properties[name], s.required(name))
		if errors.Is(err, io.EOF) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if err != nil {
			return nil, err
		}
		if ok {
			content[name] = v
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// field asks for one property until the answer is valid. ok is false
// for an optional field left empty.
func (c *console) field(ctx context.Context, name string, p *schema, required bool) (v any, ok bool, err error) {
	label := p.Title
	if label == "" {
		label = name
	}
	var check *validator
	if len(p.raw) > 0 {
		if check, err = compile(p.raw); err != nil {
			return nil, false, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("requestedSchema: %s: %v", name, err)}
		}
	}
	hint := p.typeName()
	values, titles := p.choices()
	if len(values) > 0 {
		var opts []string
		for i, v := range values {
			o := fmt.Sprint(v)
			if titles[i] != "" {
				o += " (" + titles[i] + ")"
			}
			opts = append(opts, o)
		}
		hint = "one of " + strings.Join(opts, ", ")
	}
	if required {
		hint += ", required"
	}
	var def any
	if len(p.Default) > 0 {
		_ = json.Unmarshal(p.Default, &def)
		hint += fmt.Sprintf(", default %v", def)
	}
	if p.Description != "" {
		c.printf("  %s\n", p.Description)
	}
	for {
		text, err := c.ask(ctx, fmt.Sprintf("  %s [%s]: ", label, hint))
		if err != nil {
			return nil, false, err
		}
		if text == "" {
			switch {
			case def != nil:
				return def, true, nil
			case !required:
				return nil, false, nil
			}
			c.printf("  %s is required\n", label)
			continue
		}
		v, err := p.convert(text)
		if err == nil && check != nil {
			err = check.check(v)
		}
		if err != nil {
			c.printf("  %v; try again\n", err)
			continue
		}
		return v, true, nil
	}
}

// sample shows a sampling request and asks the person to answer it as
// the model would, or to decline.
func (c *console) sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	var b strings.Builder
	b.WriteString("\nThe server asks for a completion")
	if p.SystemPrompt != "" {
		fmt.Fprintf(&b, " (system prompt: %q)", p.SystemPrompt)
	}
	fmt.Fprintf(&b, ", at most %d tokens:\n", p.MaxTokens)
	for _, m := range p.Messages {
		for _, ct := range m.Content {
			fmt.Fprintf(&b, "  %s: %s\n", m.Role, contentText(ct))
		}
	}
	c.printf("%s", b.String())
	text, err := c.ask(ctx, "Your answer as the model (empty to decline): ")
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, &jsonrpc.Error{Code: -1, Message: "the user declined the sampling request"}
	}
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text(text)}, Model: "human", StopReason: "endTurn"}, nil
}

func yes(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "y" || s == "yes"
}

// contentText is a content block as a line of text.
func contentText(ct mcp.Content) string {
	switch v := ct.(type) {
	case *mcp.TextContent:
		return v.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes base64]", v.MIMEType, len(v.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes base64]", v.MIMEType, len(v.Data))
	case *mcp.ResourceLink:
		return fmt.Sprintf("[resource link %s]", v.URI)
	case *mcp.EmbeddedResource:
		if v.Resource.Text != nil {
			return *v.Resource.Text
		}
		return fmt.Sprintf("[resource %s]", v.Resource.URI)
	}
	b, _ := json.Marshal(ct)
	return string(b)
}
