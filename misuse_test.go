package specter

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMisuseDoesNotCompile holds the mistakes the API makes impossible:
// each snippet, added to this package with `go build -overlay`, must fail
// to compile with the given message, so a user meets the mistake in the
// editor rather than at start-up or in production.
func TestMisuseDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package once per case")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	cases := []struct {
		name, body, want string
	}{
		{
			"a field option given to a declaration",
			`func misuse(r *Router, h Handler) { r.Tool("a", h, params.Description("x")) }`,
			"params.Option does not implement Option",
		},
		{
			"a router option given to a declaration",
			`func misuse(r *Router, h Handler) { r.Tool("a", h, PageSize(10)) }`,
			"does not implement Option",
		},
		{
			"work started beside a reply (Async is gone: the work is NoReply's)",
			`func misuse(c *Context) Result { c.Async(nil); return Reply("x") }`,
			"c.Async undefined",
		},
		{
			"a promise of a reply without the work",
			`func misuse() Result { return NoReply() }`,
			"not enough arguments in call to NoReply",
		},
		{
			"a context passed to a method that is one",
			`func misuse(c *Context) { _, _ = c.ListRoots(c.Context()) }`,
			"c.Context undefined",
		},
		{
			"an elicitation schema given as raw JSON",
			`func misuse(c *Context) { _, _, _ = c.Elicit("?", []byte("{}")) }`,
			"cannot use []byte",
		},
		{
			"a declaration option given to the router",
			`func misuse() { NewRouter("a", "1", ReadOnly()) }`,
			"does not implement RouterOption",
		},
	}
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".go")
			code := "package specter\n\nimport \"github.com/specter-mcp/specter/params\"\n\nvar _ = params.String\n\n" + tc.body + "\n"
			if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
				t.Fatal(err)
			}
			overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(wd, "zz_misuse.go"): src}})
			ov := src + ".json"
			if err := os.WriteFile(ov, overlay, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(gobin, "build", "-overlay", ov, "-o", os.DevNull, ".").CombinedOutput()
			if err == nil {
				t.Fatalf("compiled; want a compile error containing %q", tc.want)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("compile error does not contain %q:\n%s", tc.want, out)
			}
		})
	}
}
