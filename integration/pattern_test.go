package integration

import (
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/params"
)

type ticketRef struct {
	Key string `json:"key" validate:"required" pattern:"^[A-Z]+-[0-9]+$" description:"Ticket key"`
}

func TestParamsPatternInSchemaAndValidation(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("sku", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("ok " + p.String("sku"))
	}, specter.Description("Look up a SKU"), params.String("sku", params.Required(), params.Pattern(`^[A-Z]{3}-\d{4}$`)))
	specter.Tool(r, "ticket", func(p ticketRef, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("ok " + p.Key)
	}, specter.Description("Open a ticket"))
	for _, ec := range bothEras(t, r) {
		t.Run(ec.name, func(t *testing.T) {
			tools, err := ec.c.ListTools(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"sku": `"pattern":"^[A-Z]{3}-\\d{4}$"`, "ticket": `"pattern":"^[A-Z]+-[0-9]+$"`}
			for _, tool := range tools {
				if !strings.Contains(string(tool.InputSchema), want[tool.Name]) {
					t.Errorf("%s: schema %s lacks %s", tool.Name, tool.InputSchema, want[tool.Name])
				}
			}
			for _, tc := range []struct {
				tool, arg, value string
				ok               bool
			}{
				{"sku", "sku", "ABC-1234", true},
				{"sku", "sku", "abc-1234", false},
				{"sku", "sku", "ABC-1234x", false},
				{"ticket", "key", "OPS-7", true},
				{"ticket", "key", "ops 7", false},
			} {
				res, _, err := ec.c.CallTool(ctx(t), tc.tool, map[string]any{tc.arg: tc.value})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError == tc.ok {
					t.Errorf("%s(%q): isError %v, want %v: %s", tc.tool, tc.value, res.IsError, !tc.ok, text(t, res))
				}
				if !tc.ok && !strings.Contains(text(t, res), "must match the pattern") {
					t.Errorf("%s(%q): error %q does not name the pattern", tc.tool, tc.value, text(t, res))
				}
			}
		})
	}
}
