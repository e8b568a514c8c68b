package specter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/specter-mcp/specter/params"
)

func nop(Params, *Request, *Context) Result { return Reply("ok") }

func newTestRouter() *Router { return NewRouter("t", "1", Logger(zerolog.Nop())) }

// declErr runs a declaration and returns the *DeclarationError it panics with.
func declErr(t *testing.T, declare func()) *DeclarationError {
	t.Helper()
	var got *DeclarationError
	func() {
		defer func() {
			if v := recover(); v != nil {
				err, ok := v.(error)
				if !ok || !errors.As(err, &got) {
					t.Fatalf("panicked with %v, want a *DeclarationError", v)
				}
			}
		}()
		declare()
	}()
	return got
}

func TestDeclarationErrorsNameTheDeclaration(t *testing.T) {
	r := newTestRouter()
	r.Tool("taken", nop, Description("x"))
	r.Prompt("taken", nop, Description("x"))
	r.Resource("app://taken", nop, Description("x"))
	cases := []struct {
		name    string
		declare func()
		want    string
	}{
		{"duplicate tool", func() { r.Tool("taken", nop, Description("x")) }, `tool "taken": a tool with this name is already declared`},
		{"duplicate prompt", func() { r.Prompt("taken", nop, Description("x")) }, `prompt "taken"`},
		{"duplicate resource", func() { r.Resource("app://taken", nop, Description("x")) }, `resource "app://taken"`},
		{"duplicate template in the other syntax", func() {
			r.Resource("app://s/:id", nop, Description("x"))
			r.Resource("app://s/{id}", nop, Description("x"))
		}, "already declared"},
		{"empty tool name", func() { r.Tool("", nop, Description("x")) }, "1 to 128 characters"},
		{"tool name with a space", func() { r.Tool("a b", nop, Description("x")) }, "1 to 128 characters"},
		{"tool name too long", func() { r.Tool(strings.Repeat("a", 129), nop, Description("x")) }, "1 to 128 characters"},
		{"missing description", func() { r.Tool("nodesc", nop) }, "a description is required"},
		{"nil handler", func() { r.Tool("nilh", nil, Description("x")) }, "the handler is nil"},
		{"bad template", func() { r.Resource("app://x/{id", nop, Description("x")) }, "invalid URI template"},
		{"resource without scheme", func() { r.Resource("just-a-name", nop, Description("x")) }, "no scheme"},
		{"integer prompt argument", func() { r.Prompt("p", nop, Description("x"), params.Integer("n")) }, "prompt arguments are strings"},
		{"bad validate tag", func() { r.Tool("badtag", nop, Description("x"), params.String("s", params.Validate("min=abc"))) }, `"s"`},
		{"params and raw schema", func() {
			r.Tool("both", nop, Description("x"), params.String("s"), InputSchema(json.RawMessage(`{"type":"object"}`)))
		}, "cannot be combined"},
		{"raw schema not an object", func() { r.Tool("raw", nop, Description("x"), InputSchema(json.RawMessage(`{"type":"string"}`))) }, `tool "raw"`},
		{"bad output schema", func() { r.Tool("out", nop, Description("x"), OutputSchema(json.RawMessage(`{`))) }, "output schema"},
		{"complete on a missing variable", func() { r.Resource("app://c/:id", nop, Description("x"), Complete("nope", Values("a"))) }, "no such variable"},
		{"list on a fixed URI", func() { r.Resource("app://fixed", nop, Description("x"), List(nop)) }, "List applies to resource templates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := declErr(t, tc.declare)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "specter: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestTypedDeclarationErrors(t *testing.T) {
	r := newTestRouter()
	type notStringPrompt struct {
		N int `json:"n"`
	}
	err := declErr(t, func() {
		Prompt(r, "typed", func(notStringPrompt, *Request, *Context) Result { return Reply("") }, Description("x"))
	})
	if err == nil || !strings.Contains(err.Error(), "prompt arguments are strings") {
		t.Fatalf("got %v", err)
	}
	err = declErr(t, func() { Tool[struct{}](r, "nilhandler", nil, Description("x")) })
	if err == nil || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("got %v", err)
	}
}

func TestDeclarationsChangeSafelyWhileRead(t *testing.T) {
	r := newTestRouter()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 50 {
				name := string(rune('a'+i)) + strings.Repeat("x", j%5+1)
				r.Tool(name+"_"+string(rune('0'+j%10))+string(rune('a'+j/10)), nop, Description("x"))
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				c := r.catalog.Load()
				_ = len(c.Tools) + len(c.ByTool)
			}
		}()
	}
	wg.Wait()
	if got := len(r.catalog.Load().Tools); got != 200 {
		t.Fatalf("%d tools, want 200", got)
	}
	if !r.RemoveTool("ax_0a") || r.RemoveTool("ax_0a") {
		t.Error("RemoveTool should report true once")
	}
}

func TestResourceURI(t *testing.T) {
	r := newTestRouter()
	r.Resource("app://studies/:id", nop, Description("x"))
	if _, err := r.ResourceURI("app://studies/:id", map[string]any{}); err == nil {
		t.Error("ResourceURI without the variable did not fail")
	}
	if _, err := r.ResourceURI("app://nothing/:id", map[string]any{"id": 1}); err == nil {
		t.Error("ResourceURI of an undeclared pattern did not fail")
	}
	if u, err := r.ResourceURI("app://studies/{id}", map[string]any{"id": "a b"}); err != nil || u != "app://studies/a%20b" {
		t.Errorf("ResourceURI escapes values: %q %v", u, err)
	}
}

func TestValuesCompleter(t *testing.T) {
	got, _ := Values("Paris", "park", "Lyon").Complete(context.Background(), "pa", nil)
	if strings.Join(got, ",") != "Paris,park" {
		t.Errorf("got %v", got)
	}
}

func TestBadPatternPanicsAtRegistration(t *testing.T) {
	r := newTestRouter()
	err := declErr(t, func() {
		r.Tool("p", nop, Description("x"), params.String("code", params.Pattern(`[a-`)))
	})
	if err == nil || !strings.Contains(err.Error(), `field "code": Pattern: "[a-" is not a valid regular expression`) {
		t.Fatalf("error %v", err)
	}
	err = declErr(t, func() {
		r.Tool("q", nop, Description("x"), params.Integer("n", params.Pattern(`\d`)))
	})
	if err == nil || !strings.Contains(err.Error(), "a pattern applies to strings, not to integers") {
		t.Fatalf("error %v", err)
	}
}

func TestOutputOfANonStructFailsTheDeclaration(t *testing.T) {
	err := declErr(t, func() { newTestRouter().Tool("o", nop, Description("x"), Output[int]()) })
	if err == nil || !strings.Contains(err.Error(), `tool "o": Output: `) {
		t.Fatalf("error %v", err)
	}
}

func TestResourceParamsAndSizeAreChecked(t *testing.T) {
	r := newTestRouter()
	for want, declare := range map[string]func(){
		`param "nope": the template has no such variable`:     func() { r.Resource("app://a/{id}", nop, Description("x"), params.Integer("nope")) },
		"a resource takes no params":                          func() { r.Resource("app://fixed", nop, Description("x"), params.Integer("id")) },
		"a template variable is a string, integer, number or": func() { r.Resource("app://b/{id}", nop, Description("x"), params.Object("id", nil)) },
		"Size applies to a fixed URI":                         func() { r.Resource("app://c/{id}", nop, Description("x"), Size(3)) },
	} {
		if err := declErr(t, declare); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
