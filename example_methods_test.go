package specter_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Notes is an app's handler struct; its methods become tools.
type Notes struct{ count int }

func (n *Notes) CountNotes(*specter.Request, *specter.Context) specter.Result {
	return specter.Reply(fmt.Sprint(n.count, " notes"))
}

func (n *Notes) AddNote(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
	n.count++
	return specter.Reply("added " + p.String("text"))
}

func (n *Notes) Describe() map[string]string {
	return map[string]string{"count_notes": "Count the notes", "add_note": "Add a note"}
}

func ExampleRouter_Methods() {
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Methods(&Notes{}, specter.MethodOptions(map[string][]specter.Option{
		"add_note": {params.String("text", params.Required())},
	}))

	c, stop := serve(r)
	defer stop()
	tools, _ := c.ListTools(context.Background())
	for _, t := range tools {
		fmt.Println(t.Name, "-", t.Description)
	}
	res, _, _ := c.CallTool(context.Background(), "add_note", map[string]any{"text": "milk"})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// add_note - Add a note
	// count_notes - Count the notes
	// added milk
}
