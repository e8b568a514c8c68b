package oauth_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
)

// An MCP client of a protected server: the oauth Transport under the
// HTTP transport's http.Client answers the server's 401 with discovery,
// registration and the authorization code flow. LoopbackRedirect has the
// user authorize in a browser and catches the redirect back on a loopback
// port.
func ExampleNew() {
	tr, err := oauth.New(oauth.Config{
		Redirect: oauth.LoopbackRedirect{Open: func(authURL string) error {
			fmt.Println("Open this page to authorize notes-cli:", authURL) // or launch the browser
			return nil
		}},
		RedirectURL:   "http://127.0.0.1:8976/callback",
		ClientName:    "notes-cli",
		OfflineAccess: true, // a refresh token, where the server offers one
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.Connect(context.Background(), &client.HTTPTransport{
		URL:    "https://notes.example.com/mcp",
		Client: &http.Client{Transport: tr},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(context.Background())
}
