package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/mcp"
)

// errUsage is a command line the flag package has already complained
// about: the status is 2 and nothing more is printed.
var errUsage = errors.New("usage")

// defaultCallbackPort is the loopback port of the browser login's
// redirect: one fixed port, so that a client registered with an
// authorization server once keeps working from one run to the next, and
// below the range Linux hands out for outgoing connections (32768 on),
// where another program could hold it for a moment.
// SPECTER_CALLBACK_PORT chooses another.
const defaultCallbackPort = 28419

// callbackPort is the redirect's port: SPECTER_CALLBACK_PORT, or the
// default.
func callbackPort() (string, error) {
	v := os.Getenv("SPECTER_CALLBACK_PORT")
	if v == "" {
		return strconv.Itoa(defaultCallbackPort), nil
	}
	if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("SPECTER_CALLBACK_PORT is %q, not a port number", v)
	}
	return v, nil
}

// target names a server the way every subcommand does: --url for
// Streamable HTTP, or the command after -- for stdio.
type target struct {
	url     string
	headers pairs
	env     pairs
	era     string
	version string
	noLogin bool
	command []string
}

// pairs is a repeatable KEY=VALUE flag.
type pairs []string

func (p *pairs) String() string { return strings.Join(*p, ",") }

func (p *pairs) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*p = append(*p, v)
	return nil
}

// each calls fn with each pair's key and value, in order.
func (p pairs) each(fn func(k, v string)) {
	for _, kv := range p {
		k, v, _ := strings.Cut(kv, "=")
		fn(k, v)
	}
}

// mapped returns the pairs as a map, nil when there are none.
func (p pairs) mapped() map[string]string {
	if len(p) == 0 {
		return nil
	}
	m := map[string]string{}
	p.each(func(k, v string) { m[k] = v })
	return m
}

// register adds the target's flags to fs; connects says whether the
// command connects (install only writes the server down).
func (t *target) register(fs *flag.FlagSet, connects bool) {
	fs.StringVar(&t.url, "url", "", "the server's Streamable HTTP endpoint (else the stdio command after --)")
	fs.Var(&t.headers, "header", "an HTTP header `K=V` sent with every request (repeatable)")
	fs.Var(&t.env, "env", "an environment variable `KEY=VAL` for the stdio command (repeatable)")
	if connects {
		fs.StringVar(&t.era, "era", "", "the protocol era: stateless (2026-07-28) or session (2025-11-25); default: negotiate")
		fs.StringVar(&t.version, "version", "", "pin the protocol `revision`, such as 2025-06-18")
		fs.BoolVar(&t.noLogin, "no-login", false, "on a 401, fail instead of logging in through the browser")
	}
}

// check says what is wrong with how the server was named.
func (t *target) check() error {
	switch {
	case t.url == "" && len(t.command) == 0:
		return errors.New("name a server: --url URL, or -- command args...")
	case t.url != "" && len(t.command) > 0:
		return errors.New("name one server: --url or a command after --, not both")
	case t.url != "" && len(t.env) > 0:
		return errors.New("--env is for a stdio command; use --header for --url")
	case len(t.command) > 0 && len(t.headers) > 0:
		return errors.New("--header is for --url; use --env for a stdio command")
	}
	return nil
}

// protocol returns the revision to pin, from --version or --era.
func (t *target) protocol() (string, error) {
	switch t.era {
	case "":
		return t.version, nil
	case "stateless", "2026":
		if t.version != "" && t.version != mcp.Version20260728 {
			return "", fmt.Errorf("--era stateless speaks %s, not %s", mcp.Version20260728, t.version)
		}
		return mcp.Version20260728, nil
	case "session":
		if t.version != "" {
			if !mcp.IsSessionVersion(t.version) {
				return "", fmt.Errorf("%s is not a session-era revision", t.version)
			}
			return t.version, nil
		}
		return mcp.LatestSessionVersion, nil
	}
	return "", fmt.Errorf("--era is stateless or session, not %q", t.era)
}

// parse reads args into fs's flags, allowing flags between positional
// arguments, and returns the positional arguments and the command after
// --.
func parse(fs *flag.FlagSet, args []string) (positional, command []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			return nil, nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, command, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// newFlags returns a flag set whose usage is the synopsis, the
// description and the flags.
func newFlags(name, synopsis, about string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: specter %s %s\n\n%s\n\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// transport returns the client transport of the target. The stdio
// server's standard error goes to errOut.
func (t *target) transport(errOut io.Writer) (client.Transport, error) {
	if t.url != "" {
		h := http.Header{}
		t.headers.each(func(k, v string) { h.Add(k, v) })
		hc := &http.Client{}
		if !t.noLogin {
			rt, err := loginTransport(errOut)
			if err != nil {
				return nil, err
			}
			hc.Transport = rt
		}
		return &client.HTTPTransport{URL: t.url, Header: h, Client: hc}, nil
	}
	cmd := exec.Command(t.command[0], t.command[1:]...)
	cmd.Stderr = errOut
	if len(t.env) > 0 {
		cmd.Env = os.Environ()
		t.env.each(func(k, v string) { cmd.Env = append(cmd.Env, k+"="+v) })
	}
	// Ctrl-C at the terminal is for specter, which cancels the call on
	// the wire; the server must not get it too.
	detach(cmd)
	return &client.CommandTransport{Cmd: cmd}, nil
}

// connect connects to the target with opts, pinning the protocol that
// --era or --version asks for.
func (t *target) connect(ctx context.Context, s streams, opts client.Options) (*client.Client, error) {
	if err := t.check(); err != nil {
		return nil, &exitError{code: 2, msg: err.Error()}
	}
	v, err := t.protocol()
	if err != nil {
		return nil, &exitError{code: 2, msg: err.Error()}
	}
	opts.Version = v
	if opts.Info.Name == "" {
		opts.Info = mcp.Implementation{Name: "specter-cli", Version: "1.0.0"}
	}
	tr, err := t.transport(s.Err)
	if err != nil {
		return nil, err
	}
	c, err := client.Connect(ctx, tr, &opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", t.name(), err)
	}
	return c, nil
}

// name is the server as the user named it, for messages.
func (t *target) name() string {
	if t.url != "" {
		return t.url
	}
	return strings.Join(t.command, " ")
}

// loginTransport authorizes requests as servers ask (MCP
// authorization): on a 401 the user logs in through the browser, and
// tokens and client registrations are cached per server in the user's
// configuration directory, so the next run logs in no more.
func loginTransport(errOut io.Writer) (http.RoundTripper, error) {
	var store oauth.Store
	if dir, err := os.UserConfigDir(); err == nil {
		store = oauth.NewFileStore(filepath.Join(dir, "specter", "oauth.json"))
	}
	port, err := callbackPort()
	if err != nil {
		return nil, err
	}
	return oauth.New(oauth.Config{
		RedirectURL: "http://127.0.0.1:" + port + "/callback",
		ClientName:  "specter",
		Store:       store,
		Redirect: oauth.LoopbackRedirect{Open: func(authURL string) error {
			fmt.Fprintf(errOut, "The server asks you to log in. Opening your browser at\n\n  %s\n\n", authURL)
			if err := openBrowser(authURL); err != nil {
				fmt.Fprintln(errOut, "(could not open a browser; open the address above yourself)")
			}
			return nil
		}},
	})
}

// openBrowser shows u in the user's browser; $BROWSER, when set, names
// the program.
func openBrowser(u string) error {
	if b := os.Getenv("BROWSER"); b != "" {
		return exec.Command(b, u).Start()
	}
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", u).Start()
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", u).Start()
	}
	return exec.Command("xdg-open", u).Start()
}

// sortedCommands returns the subcommands' names in order.
func sortedCommands() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// keyValues parses key=value arguments, the values as strings.
func keyValues(args []string) (map[string]any, error) {
	out := map[string]any{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not key=value", a)
		}
		out[k] = v
	}
	return out, nil
}
