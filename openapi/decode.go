package openapi

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// decodeJSON decodes a JSON document into t as t.UnmarshalJSON does, but
// cheaper. kin-openapi finds each object's extensions by decoding the
// object a second time into generic maps, so the document's top level,
// its components and its paths are each decoded in full twice, and each
// path item once more after a round trip through json.Marshal. Here
// those three levels are split into their members, read once each; what
// lies below them is decoded by kin-openapi as before.
func decodeJSON(data []byte, t *openapi3.T) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	for k, v := range top {
		var err error
		switch k {
		case "openapi":
			err = json.Unmarshal(v, &t.OpenAPI)
		case "components":
			err = decodeComponents(v, &t.Components)
		case "info":
			err = json.Unmarshal(v, &t.Info)
		case "paths":
			err = decodePaths(v, &t.Paths)
		case "security":
			err = json.Unmarshal(v, &t.Security)
		case "servers":
			err = json.Unmarshal(v, &t.Servers)
		case "tags":
			err = json.Unmarshal(v, &t.Tags)
		case "externalDocs":
			err = json.Unmarshal(v, &t.ExternalDocs)
		case "webhooks":
			err = json.Unmarshal(v, &t.Webhooks)
		case "jsonSchemaDialect":
			err = json.Unmarshal(v, &t.JSONSchemaDialect)
		default:
			err = extension(&t.Extensions, k, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// extension keeps an unknown member, as kin-openapi does.
func extension(ext *map[string]any, k string, v json.RawMessage) error {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return err
	}
	if *ext == nil {
		*ext = map[string]any{}
	}
	(*ext)[k] = x
	return nil
}

func decodeComponents(data json.RawMessage, dst **openapi3.Components) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return err
	}
	c := &openapi3.Components{}
	for k, v := range m {
		var err error
		switch k {
		case "schemas":
			err = json.Unmarshal(v, &c.Schemas)
		case "parameters":
			err = json.Unmarshal(v, &c.Parameters)
		case "headers":
			err = json.Unmarshal(v, &c.Headers)
		case "requestBodies":
			err = json.Unmarshal(v, &c.RequestBodies)
		case "responses":
			err = json.Unmarshal(v, &c.Responses)
		case "securitySchemes":
			err = json.Unmarshal(v, &c.SecuritySchemes)
		case "examples":
			err = json.Unmarshal(v, &c.Examples)
		case "links":
			err = json.Unmarshal(v, &c.Links)
		case "callbacks":
			err = json.Unmarshal(v, &c.Callbacks)
		default:
			err = extension(&c.Extensions, k, v)
		}
		if err != nil {
			return err
		}
	}
	*dst = c
	return nil
}

func decodePaths(data json.RawMessage, dst **openapi3.Paths) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return err
	}
	p := openapi3.NewPaths()
	p.Extensions = map[string]any{}
	for k, v := range m {
		if strings.HasPrefix(k, "x-") {
			if err := extension(&p.Extensions, k, v); err != nil {
				return err
			}
			continue
		}
		item := &openapi3.PathItem{}
		if err := json.Unmarshal(v, item); err != nil {
			return err
		}
		p.Set(k, item)
	}
	*dst = p
	return nil
}
