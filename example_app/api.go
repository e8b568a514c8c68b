package main

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/openapi"
)

// The app's REST API, described by openapi.yaml, which it serves at
// /api/openapi.yaml. Its routes are also MCP tools, called in process as
// the MCP caller (openapi.MountRoutes): the same handlers, middleware and
// authorization serve both.

//go:embed openapi.yaml
var apiDocument []byte

// mountAPI adds the REST API to e, behind authenticate.
func mountAPI(e *echo.Echo, authenticate echo.MiddlewareFunc, repo *studyRepo) {
	e.GET("/api/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", apiDocument)
	})
	g := e.Group("/api", authenticate)
	g.GET("/me", func(c echo.Context) error {
		u, err := apiUser(c)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "name": u.Name, "plan": u.Plan})
	})
	g.GET("/studies", func(c echo.Context) error {
		matches, total := repo.Filter(c.QueryParam("status"), c.QueryParam("q"))
		if matches == nil {
			matches = []Study{}
		}
		return c.JSON(http.StatusOK, map[string]any{"studies": matches, "total": total})
	})
	g.GET("/studies/:id", func(c echo.Context) error {
		s, ok := repo.Get(c.Param("id"))
		if !ok {
			return c.JSON(http.StatusNotFound, map[string]string{"message": "no study " + c.Param("id")})
		}
		return c.JSON(http.StatusOK, s)
	})
	g.PUT("/studies/:id/status", func(c echo.Context) error {
		u, err := apiUser(c)
		if err != nil {
			return err
		}
		if u.Plan != planUltra {
			return c.JSON(http.StatusForbidden, map[string]string{"message": "only users on the ultra plan may change studies"})
		}
		var body struct {
			Status string `json:"status"`
		}
		if err := c.Bind(&body); err != nil {
			return err
		}
		if !validStatus(body.Status) {
			return c.JSON(http.StatusBadRequest, map[string]string{"message": "unknown status " + body.Status})
		}
		s, ok := repo.SetStatus(c.Param("id"), body.Status)
		if !ok {
			return c.JSON(http.StatusNotFound, map[string]string{"message": "no study " + c.Param("id")})
		}
		return c.JSON(http.StatusOK, s)
	})
}

// apiUser is the caller of an API request, from its verified token.
func apiUser(c echo.Context) (user, error) {
	claims, ok := auth.ClaimsFromEcho(c)
	if !ok {
		return user{}, echo.ErrUnauthorized
	}
	u, err := userFrom(claims)
	if err != nil {
		return user{}, echo.NewHTTPError(http.StatusForbidden, err.Error())
	}
	return u, nil
}

func validStatus(s string) bool {
	for _, v := range statuses {
		if v == s {
			return true
		}
	}
	return false
}

// authenticated verifies a request's bearer token with verify, unless the
// request already carries verified claims: an in-process call of a route
// as an MCP tool has the MCP request's context, whose token the MCP
// endpoint verified. Context values never come from the wire.
func authenticated(verify echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		verified := verify(next)
		return func(c echo.Context) error {
			if _, ok := auth.ClaimsFromEcho(c); ok {
				return next(c)
			}
			return verified(c)
		}
	}
}

// declareAPI makes the API's routes tools of r, called in process.
func declareAPI(r *specter.Router, e *echo.Echo) error {
	doc, err := openapi.Parse(apiDocument)
	if err != nil {
		return err
	}
	return openapi.MountRoutes(r, e, doc, openapi.RouteOptions{
		Select: []openapi.Select{{Tags: []string{"account", "studies"}}},
	})
}
