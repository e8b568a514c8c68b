package integration

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// readmeSection is the README section whose program TestReadmeEchoApp
// builds and runs.
const readmeSection = "## Add Specter to an existing Echo app"

// readmeProgram returns the first Go block of the README's section.
func readmeProgram(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+readmeSection+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", readmeSection)
	}
	_, block, ok := strings.Cut(section, "\n```go\n")
	program, _, closed := strings.Cut(block, "\n```\n")
	if !ok || !closed || !strings.Contains(program, "package main") {
		t.Fatalf("the section %q has no complete Go program", readmeSection)
	}
	return program + "\n"
}

// TestReadmeEchoApp copies the complete program of the README's "Add
// Specter to an existing Echo app" into a new module (with a replace to
// this repository), builds and runs it, and checks what the README says
// of it: the app's REST route answers behind its own JWT middleware, and
// the MCP endpoint serves the same users in both eras, filtered per user,
// with MCP-shaped refusals.
func TestReadmeEchoApp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module notes\n\ngo 1.26.0\n\nrequire github.com/specter-mcp/specter v0.0.0\n\n" +
		"replace github.com/specter-mcp/specter => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"main.go": []byte(readmeProgram(t)), "go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The modules it needs are this repository's, already in the module
	// cache: nothing is fetched.
	build := exec.CommandContext(testCtx(t), "go", "build", "-o", "notes", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's program does not build: %v\n%s", err, out)
	}

	secret := "the notes app's login secret, 32 bytes+"
	app := exec.Command(filepath.Join(dir, "notes"))
	app.Env = append(os.Environ(), "NOTES_JWT_SECRET="+secret, "NOTES_ADDR=127.0.0.1:0")
	stdout, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	app.Stderr = &stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		_ = app.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("the program's stderr:\n%s", stderr.String())
		}
	})
	base := "http://" + readmeAppAddr(t, stdout, exited)

	token := func(sub, role string) string {
		c := jwt.MapClaims{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()}
		if role != "" {
			c["role"] = role
		}
		return authSign(t, jwt.SigningMethodHS256, []byte(secret), "", c)
	}
	ada, admin := token("ada", ""), token("root", "admin")

	// The REST route, as the app had it.
	for _, tc := range []struct {
		authorization string
		status        int
		body          string
	}{
		{"Bearer " + ada, 200, `["buy milk"]`},
		{"", 401, `{"message":"missing or malformed jwt"}`},
	} {
		req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, base+"/api/notes", nil)
		if tc.authorization != "" {
			req.Header.Set("Authorization", tc.authorization)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || strings.TrimSpace(string(body)) != tc.body {
			t.Errorf("GET /api/notes (%q): %d %s; want %d %s", tc.authorization, resp.StatusCode, body, tc.status, tc.body)
		}
	}

	// MCP in both eras, the same users.
	session := func(token string) mcptest.Caller {
		c := mcptest.NewClient(base + "/mcp")
		c.Header.Set("Authorization", "Bearer "+token)
		if _, err := c.Initialize(ctx(t), mcp.LatestSessionVersion); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		return c
	}
	stateless := func(token string) mcptest.Caller {
		c := mcptest.NewStatelessClient(base + "/mcp")
		c.Header.Set("Authorization", "Bearer "+token)
		return c
	}
	for era, open := range map[string]func(string) mcptest.Caller{"session": session, "2026-07-28": stateless} {
		for _, who := range []struct {
			token string
			tools []string
		}{
			{ada, []string{"add_note", "list_notes"}},
			{admin, []string{"add_note", "clear_all_notes", "list_notes"}},
		} {
			tools, err := open(who.token).ListTools(ctx(t))
			if err != nil {
				t.Fatalf("%s: tools/list: %v", era, err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			if slices.Sort(names); !slices.Equal(names, who.tools) {
				t.Errorf("%s: tools %v, want %v", era, names, who.tools)
			}
		}
		c := open(ada)
		note := "call the bank from " + era
		if _, _, err := c.CallTool(ctx(t), "add_note", map[string]any{"text": note}); err != nil {
			t.Fatalf("%s: add_note: %v", era, err)
		}
		res, _, err := c.CallTool(ctx(t), "list_notes", map[string]any{"containing": era})
		if want := `{"notes":[` + mustJSON(note) + `]}`; err != nil || text(t, res) != want {
			t.Errorf("%s: list_notes: %+v %v; want %s", era, res, err, want)
		}
	}
	for era, req := range notesRequests(t, base+"/mcp", "") {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: missing or malformed jwt"}}`
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != "Bearer" || strings.TrimSpace(string(body)) != want {
			t.Errorf("%s without a token: %d, WWW-Authenticate %q, %s; want 401, Bearer, %s",
				era, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, want)
		}
	}
}

// started is the line Echo prints once it listens.
var started = regexp.MustCompile(`http server started on (\S+)`)

// readmeAppAddr reads the program's output until Echo says where it
// listens, and returns that address.
func readmeAppAddr(t *testing.T, stdout io.Reader, exited <-chan error) string {
	t.Helper()
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if m := started.FindStringSubmatch(lines.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-addr:
		return a
	case err := <-exited:
		t.Fatalf("the program ended before it listened: %v", err)
	case <-testCtx(t).Done():
		t.Fatal("the program never said where it listens")
	}
	return "" // t.Fatal does not return
}
