// Package openapi serves the operations of an OpenAPI 3.0 or 3.1 document
// as MCP tools, resources and resource templates of a Specter router, and
// an Echo app's own routes as tools called in process.
//
// Parse (or Read) turns a document into operations with MCP names and
// JSON Schema 2020-12 input and output schemas; Mount declares them on a
// router, each call an HTTP request to the API's base URL; MountRoutes
// declares routes of the Echo app the router is mounted in, each call
// running the route's handler and middleware in process, as the MCP
// caller.
//
// Documents are loaded with github.com/getkin/kin-openapi rather than
// github.com/pb33f/libopenapi: kin-openapi reads OpenAPI 3.0 and 3.1 into
// plain Go structs with resolved references, which this package walks
// once and then drops, and it is the loader the Echo ecosystem already
// uses (oapi-codegen and its Echo middleware). libopenapi keeps a YAML
// node tree beside its model for every element, which costs several times
// the memory on a document the size of GitHub's REST API description, and
// nothing here needs what it buys (source positions, diffs).
package openapi
