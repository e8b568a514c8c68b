package openapi_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/openapi"
	"github.com/specter-mcp/specter/principal"
)

const notesDoc = `
openapi: 3.0.3
info: {title: notes, version: "1"}
paths:
  /notes/{id}:
    get:
      operationId: get_note
      summary: Read a note
      tags: [notes]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {type: object, properties: {id: {type: integer}, owner: {type: string}}}}}
    delete:
      operationId: delete_note
      tags: [notes]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses: {"204": {description: gone}}
  /boom:
    post:
      operationId: boom
      tags: [other]
      responses: {"200": {description: never}}
`

type ctxKey struct{}

// notesApp is an Echo app whose routes check the principal the request's
// context carries, behind middleware that counts the requests it sees.
func notesApp() (*echo.Echo, *int) {
	e := echo.New()
	seen := new(int)
	count := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			*seen++
			return next(c)
		}
	}
	// The app's authentication: the X-User header names the caller of a
	// request whose context names none.
	authenticate := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if _, ok := principal.FromContext(c.Request().Context()); !ok && c.Request().Header.Get("X-User") != "" {
				req := c.Request()
				c.SetRequest(req.WithContext(principal.NewContext(req.Context(), &principal.Principal{ID: req.Header.Get("X-User")})))
			}
			return next(c)
		}
	}
	g := e.Group("", count, authenticate)
	g.GET("/notes/:id", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		if p == nil {
			return c.JSON(http.StatusUnauthorized, map[string]string{"message": "who are you"})
		}
		id, err := strconv.Atoi(c.Param("id"))
		if err != nil {
			return c.JSON(http.StatusBadRequest, map[string]string{"message": "id is a number"})
		}
		return c.JSON(http.StatusOK, map[string]any{"id": id, "owner": p.ID, "trace": c.Request().Header.Get("X-Trace"),
			"value": c.Request().Context().Value(ctxKey{}), "auth": c.Request().Header.Get("Authorization")})
	})
	g.DELETE("/notes/:id", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		if !p.HasScope("notes:delete") {
			return c.JSON(http.StatusForbidden, map[string]string{"message": "notes:delete needed"})
		}
		return c.NoContent(http.StatusNoContent)
	})
	g.POST("/boom", func(c echo.Context) error { panic("the route broke") })
	type search struct {
		Tag   string `param:"tag" json:"tag" validate:"required"`
		Limit int    `query:"limit" json:"limit"`
		Body  string `json:"text"`
	}
	g.POST("/tags/:tag/search", func(c echo.Context) error {
		var s search
		if err := c.Bind(&s); err != nil {
			return err
		}
		// Echo binds the query only for GET and DELETE.
		return c.JSON(http.StatusOK, map[string]any{"tag": s.Tag, "text": s.Body, "limit": c.QueryParam("limit")})
	})
	return e, seen
}

func notesRouter(t *testing.T, e *echo.Echo, o openapi.RouteOptions) http.Handler {
	t.Helper()
	doc, err := openapi.Parse([]byte(notesDoc))
	if err != nil {
		t.Fatal(err)
	}
	r := specter.NewRouter("notes", "1")
	if err := openapi.MountRoutes(r, e, doc, o); err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithValue(req.Context(), ctxKey{}, "from MCP middleware")
		if u := req.Header.Get("X-User"); u != "" {
			ctx = principal.NewContext(ctx, &principal.Principal{ID: u, Scopes: strings.Fields(req.Header.Get("X-Scopes"))})
		}
		r.Handler().ServeHTTP(w, req.WithContext(ctx))
	})
}

func TestRoutesInProcess(t *testing.T) {
	e, seen := notesApp()
	h := notesRouter(t, e, openapi.RouteOptions{Select: []openapi.Select{{Tags: []string{"notes"}}, {Names: []string{"nothing"}}, {Path: regexp.MustCompile(`^/boom$`)}}})
	for _, version := range []string{mcp.LatestSessionVersion, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			c := connectAs(t, h, "alice", version)
			ctx := context.Background()
			before := *seen
			res, err := c.CallTool(ctx, "get_note", map[string]any{"id": 3, "X-Trace": "t1"})
			if err != nil || res.IsError {
				t.Fatalf("get_note: %v %+v", err, res)
			}
			for _, want := range []string{`"owner":"alice"`, `"id":3`, `"trace":"t1"`, `"value":"from MCP middleware"`, `"auth":"Bearer token-of-alice"`} {
				if !strings.Contains(string(res.StructuredContent), want) {
					t.Errorf("get_note: %s lacks %s", res.StructuredContent, want)
				}
			}
			if *seen != before+1 {
				t.Errorf("the route's middleware ran %d times", *seen-before)
			}
			// The app's own authorization: alice lacks notes:delete.
			res, err = c.CallTool(ctx, "delete_note", map[string]any{"id": 3})
			if err != nil || !res.IsError || !strings.Contains(text(res), "HTTP 403 Forbidden") || !strings.Contains(text(res), "notes:delete needed") {
				t.Fatalf("delete_note as alice: %v %+v", err, res)
			}
			// A panic in the route is an internal error, not a crash.
			if res, err := c.CallTool(ctx, "boom", map[string]any{}); err == nil {
				t.Errorf("boom: %+v", res)
			}
		})
	}
	// With the scope, the route lets the caller through.
	withScope := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Scopes", "notes:delete")
		h.ServeHTTP(w, r)
	})
	res, err := connectAs(t, withScope, "bob", mcp.Version20260728).CallTool(context.Background(), "delete_note", map[string]any{"id": 3})
	if err != nil || res.IsError || text(res) != "HTTP 204 No Content" {
		t.Fatalf("delete_note as bob: %v %+v", err, res)
	}
}

func TestRoutesSelectRequired(t *testing.T) {
	e, _ := notesApp()
	doc, _ := openapi.Parse([]byte(notesDoc))
	r := specter.NewRouter("notes", "1")
	if err := openapi.MountRoutes(r, e, doc, openapi.RouteOptions{}); err == nil {
		t.Error("mounted without a selection")
	}
	err := openapi.MountRoutes(r, e, doc, openapi.RouteOptions{Select: []openapi.Select{{Path: regexp.MustCompile(`^/tags/`)}}})
	if err == nil || !strings.Contains(err.Error(), "RouteTool") {
		t.Errorf("a route missing from the document: %v", err)
	}
}

func TestRouteTool(t *testing.T) {
	e, _ := notesApp()
	type search struct {
		Tag   string `param:"tag" json:"tag" validate:"required" description:"The tag"`
		Limit int    `query:"limit" json:"limit,omitempty"`
		Text  string `json:"text"`
	}
	r := specter.NewRouter("notes", "1")
	if err := openapi.RouteTool[search](r, e, http.MethodPost, "/tags/:tag/search", "search_tag", specter.Description("Search a tag")); err != nil {
		t.Fatal(err)
	}
	if err := openapi.RouteTool[search](r, e, http.MethodGet, "/none", "none"); err == nil {
		t.Error("a tool for a route e lacks")
	}
	c := connectAs(t, r.Handler(), "alice", mcp.Version20260728)
	res, err := c.CallTool(context.Background(), "search_tag", map[string]any{"tag": "go", "limit": 5, "text": "hello"})
	if err != nil || res.IsError || string(res.StructuredContent) != `{"limit":"5","tag":"go","text":"hello"}` {
		t.Fatalf("search_tag: %v %+v %s", err, res, res.StructuredContent)
	}
	// A path parameter stays in its segment: "/" is escaped (Echo hands
	// the route the escaped value, as it does over HTTP), dot segments
	// refused.
	res, err = c.CallTool(context.Background(), "search_tag", map[string]any{"tag": "a/b"})
	if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"tag":"a%2Fb"`) {
		t.Errorf("search_tag a/b: %v %+v", err, res)
	}
	res, err = c.CallTool(context.Background(), "search_tag", map[string]any{"tag": ".."})
	if err != nil || !res.IsError || !strings.Contains(text(res), `may not be ".."`) {
		t.Errorf("search_tag ..: %v %+v", err, res)
	}
	if res, err := c.CallTool(context.Background(), "search_tag", map[string]any{"limit": 5}); err == nil && !res.IsError {
		t.Error("search_tag without its required tag succeeded")
	}
}
