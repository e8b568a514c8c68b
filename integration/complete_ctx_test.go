package integration

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// TestCompleterContextIsTheRequestsContext: a completer's ctx is the
// request's *specter.Context, as Completer documents, in both eras: it
// reads what connect assigned for this caller.
func TestCompleterContextIsTheRequestsContext(t *testing.T) {
	r := specter.NewRouter("t", "1", quiet)
	r.Connect(func(c *specter.Context) error {
		c.Assign("team", c.HTTPRequest().Header.Get("X-Team"))
		return nil
	})
	r.Prompt("review", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("Review it.")
	}, specter.Description("Review a repository"),
		params.String("repo", params.Required(), params.Description("The repository")),
		specter.Complete("repo", specter.CompleterFunc(func(ctx context.Context, value string, _ map[string]string) ([]string, error) {
			c, ok := ctx.(*specter.Context)
			if !ok {
				return []string{"ctx is not a *specter.Context"}, nil
			}
			team, _ := specter.Assigned[string](c, "team")
			var out []string
			for _, repo := range []string{"api", "app", "docs"} {
				if strings.HasPrefix(repo, value) {
					out = append(out, team+"/"+repo)
				}
			}
			return out, nil
		})))
	e := newEnv(t, r)
	session := e.newClient(nil)
	session.Header.Set("X-Team", "blue")
	e.session(session, mcp.LatestSessionVersion)
	stateless := e.stateless()
	stateless.Header.Set("X-Team", "red")
	params := map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "review"}, "argument": map[string]string{"name": "repo", "value": "a"}}
	for era, tc := range map[string]struct {
		call func() (*mcptest.Response, error)
		want []string
	}{
		"session":    {func() (*mcptest.Response, error) { return session.Call(ctx(t), "completion/complete", params) }, []string{"blue/api", "blue/app"}},
		"2026-07-28": {func() (*mcptest.Response, error) { return stateless.Call(ctx(t), "completion/complete", params) }, []string{"red/api", "red/app"}},
	} {
		resp, err := tc.call()
		if err != nil {
			t.Fatal(err)
		}
		var res mcp.CompleteResult
		if err := resp.Decode(&res); err != nil || !reflect.DeepEqual(res.Completion.Values, tc.want) {
			t.Errorf("%s: completion %+v %v, want %v", era, res.Completion, err, tc.want)
		}
	}
}
