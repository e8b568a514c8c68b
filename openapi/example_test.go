package openapi_test

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/openapi"
)

const exampleDoc = `
openapi: 3.1.0
info: {title: pets, version: "1"}
servers: [{url: "https://pets.example.com/v1"}]
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Get a pet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: The pet.
          content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}
    delete:
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses: {"204": {description: Gone.}}
`

// Mount serves a document's operations as tools calling the API.
func ExampleMount() {
	doc, err := openapi.Parse([]byte(exampleDoc))
	if err != nil {
		panic(err)
	}
	r := specter.NewRouter("pets", "1.0")
	err = openapi.Mount(r, doc, openapi.Options{
		// The API's own key, for every caller; a function of c.Caller()
		// gives each caller theirs.
		Credentials: openapi.HeaderCredentials(http.Header{"X-Api-Key": {"…"}}),
	})
	if err != nil {
		panic(err)
	}
	for _, op := range doc.Operations {
		fmt.Println(op.Name, op.Method, op.Path)
	}
	// Output:
	// delete_pets_petId DELETE /pets/{petId}
	// getPet GET /pets/{petId}
}

// MountRoutes exposes an Echo app's own routes as tools, called in
// process as the MCP caller.
func ExampleMountRoutes() {
	e := echo.New()
	e.GET("/pets/:petId", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"name": "rex"})
	})
	doc, err := openapi.Parse([]byte(exampleDoc))
	if err != nil {
		panic(err)
	}
	r := specter.NewRouter("pets", "1.0")
	err = openapi.MountRoutes(r, e, doc, openapi.RouteOptions{
		Select: []openapi.Select{{Methods: []string{http.MethodGet}}},
	})
	fmt.Println(err)
	r.Mount(e.Group("/mcp"))
	// Output: <nil>
}
