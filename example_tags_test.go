package specter_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
)

func ExampleTags() {
	r := specter.NewRouter("work", "1.0.0", specter.Logger(zerolog.Nop()))
	ok := func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("ok") }
	r.Tool("list_issues", ok, specter.Description("List GitHub issues"), specter.Tags("github"))
	r.Tool("create_ticket", ok, specter.Description("Open a Jira ticket"), specter.Tags("jira"))
	r.ToolSearch("search_tools", specter.Tags("meta"))
	r.Connect(func(c *specter.Context) error {
		// This caller gets the GitHub toolset and the search tool; the
		// search finds nothing outside them.
		c.AllowTags("github", "meta")
		return nil
	})

	c, stop := serve(r)
	defer stop()
	tools, _ := c.ListTools(context.Background())
	for _, t := range tools {
		fmt.Println(t.Name, t.Meta[specter.MetaTags])
	}
	res, _, _ := c.CallTool(context.Background(), "search_tools", map[string]any{"query": "ticket"})
	fmt.Println(string(res.StructuredContent))
	// Output:
	// list_issues [github]
	// search_tools [meta]
	// {"tools":[]}
}
