package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
)

// An MCP client of a protected server: the oauth Transport under the
// HTTP transport's http.Client answers the server's 401 with discovery,
// registration and the authorization code flow. A command-line tool's
// RedirectHandler opens the browser and waits for the callback.
func ExampleNew() {
	openBrowser := oauth.RedirectFunc(func(ctx context.Context, authURL string) (*url.URL, error) {
		fmt.Println("Open", authURL)
		// ... wait for the redirect to http://127.0.0.1:8976/callback and
		// return its URL, with the code, state and iss.
		return nil, fmt.Errorf("not in an example")
	})
	tr, err := oauth.New(oauth.Config{
		Redirect:      openBrowser,
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
