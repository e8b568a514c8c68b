package specter_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/params"
)

func ExampleFSFile() {
	docs := fstest.MapFS{
		"intro.txt": {Data: []byte("Intro\n")},
		"logo.png":  {Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
	}
	r := specter.NewRouter("docs", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Resource("docs://files/{name}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(specter.FSFile(docs, p.String("name")))
	}, specter.Description("A documentation file"))

	c, stop := serve(r)
	defer stop()
	for _, uri := range []string{"docs://files/intro.txt", "docs://files/logo.png"} {
		res, _, _ := c.ReadResource(context.Background(), uri)
		content := res.Contents[0]
		fmt.Println(content.MIMEType, content.Text != nil, content.Blob != nil)
	}
	// Output:
	// text/plain; charset=utf-8 true false
	// image/png false true
}

func ExampleRouter_Resource_typedVariables() {
	r := specter.NewRouter("shop", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Resource("shop://orders/{id}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(fmt.Sprintf("order %d", p.Int("id")+1000))
	}, specter.Description("An order"), params.Integer("id", params.Validate("min=1")))

	c, stop := serve(r)
	defer stop()
	res, _, _ := c.ReadResource(context.Background(), "shop://orders/42")
	fmt.Println(*res.Contents[0].Text)
	_, _, err := c.ReadResource(context.Background(), "shop://orders/none")
	fmt.Println(err)
	// Output:
	// order 1042
	// jsonrpc: Invalid params: invalid arguments: "id" must be an integer, got string (-32602)
}
