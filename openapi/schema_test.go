package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/openapi"
)

const shapes = `
openapi: 3.0.3
info: {title: shapes, version: "1"}
paths:
  /items/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
    get:
      operationId: get item
      parameters:
        - {name: id, in: query, schema: {type: integer}}
        - {name: id, in: header, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, exclusiveMinimum: true, nullable: true}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Node"}
    put:
      operationId: get item
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Shape"}
      responses:
        "204": {description: done}
  /a-very-long-path/that-keeps-going/and-going/and-going/until-it-is-far-too-long/{x}:
    delete:
      parameters:
        - {name: x, in: path, required: true, schema: {type: string, pattern: "^(?!bad)"}}
      responses:
        "200":
          description: list
          content:
            application/json:
              schema: {type: array, items: {type: string}}
components:
  schemas:
    Node:
      type: object
      properties:
        name: {type: string, nullable: true}
        kind: {type: string, enum: [a, b], nullable: true}
        children: {type: array, items: {$ref: "#/components/schemas/Node"}}
        parent: {allOf: [{$ref: "#/components/schemas/Node"}], nullable: true}
    Shape:
      oneOf:
        - {$ref: "#/components/schemas/Circle"}
        - {$ref: "#/components/schemas/Square"}
      discriminator:
        propertyName: kind
        mapping: {circle: "#/components/schemas/Circle", square: "#/components/schemas/Square"}
    Circle:
      allOf:
        - {$ref: "#/components/schemas/Base"}
        - {type: object, properties: {r: {type: number}}}
    Square:
      allOf:
        - {$ref: "#/components/schemas/Base"}
        - {type: object, properties: {side: {type: number}}}
    Base:
      type: object
      required: [kind]
      properties: {kind: {type: string}}
`

func TestSchemas(t *testing.T) {
	doc, err := openapi.Parse([]byte(shapes))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*openapi.Operation{}
	for _, op := range doc.Operations {
		ops[op.Method] = op
		compile(t, op.Name, op.InputSchema)
		if op.OutputSchema != nil {
			compile(t, op.Name+" output", op.OutputSchema)
		}
	}
	get, put, del := ops["GET"], ops["PUT"], ops["DELETE"]

	// Names: sanitized operationIds, the second of two taking "_2" (paths
	// and methods in order: GET before PUT); method+path cut to 64 with a
	// hash.
	if get.Name != "get_item" || put.Name != "get_item_2" {
		t.Errorf("names %q, %q", get.Name, put.Name)
	}
	if len(del.Name) != 64 || !strings.HasPrefix(del.Name, "delete_a-very-long-path") || !openapi.ValidName(del.Name) {
		t.Errorf("long name %q", del.Name)
	}

	// Same-name parameters in three places.
	var args []string
	for _, a := range get.Arguments() {
		args = append(args, a.Name+"="+a.In+":"+a.Param)
	}
	if got := strings.Join(args, " "); got != "id=path:id id__query=query:id limit=query:limit id__header=header:id" {
		t.Errorf("arguments %s", got)
	}
	in := decode(t, get.InputSchema)
	limit := in["properties"].(map[string]any)["limit"].(map[string]any)
	if limit["exclusiveMinimum"] != 1.0 || limit["minimum"] != nil || !sameJSON(limit["type"], []any{"integer", "null"}) {
		t.Errorf("limit %v", limit)
	}

	// A recursive output schema, bounded by $defs; nullable kept.
	out := decode(t, get.OutputSchema)
	node := out["$defs"].(map[string]any)["Node"].(map[string]any)["properties"].(map[string]any)
	if !sameJSON(node["name"], map[string]any{"type": []any{"string", "null"}}) {
		t.Errorf("nullable name %v", node["name"])
	}
	if !sameJSON(node["kind"], map[string]any{"type": []any{"string", "null"}, "enum": []any{"a", "b", nil}}) {
		t.Errorf("nullable enum %v", node["kind"])
	}
	if !sameJSON(node["parent"], map[string]any{"anyOf": []any{map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/Node"}}}, map[string]any{"type": "null"}}}) {
		t.Errorf("nullable allOf %v", node["parent"])
	}

	// oneOf with its discriminator, as one "body" argument; allOf kept.
	body := decode(t, put.InputSchema)
	if !sameJSON(body["properties"].(map[string]any)["body"], map[string]any{"$ref": "#/$defs/Shape"}) {
		t.Errorf("body %v", body["properties"])
	}
	defs := body["$defs"].(map[string]any)
	shape := defs["Shape"].(map[string]any)
	if !sameJSON(shape["discriminator"], map[string]any{"propertyName": "kind", "mapping": map[string]any{"circle": "#/$defs/Circle", "square": "#/$defs/Square"}}) {
		t.Errorf("discriminator %v", shape["discriminator"])
	}
	if len(defs) != 4 || defs["Node"] != nil {
		t.Errorf("$defs %v: want Shape, Circle, Square, Base only", defs)
	}

	// A pattern Go cannot compile is dropped; an array response has no
	// output schema.
	if strings.Contains(string(del.InputSchema), "pattern") || del.OutputSchema != nil {
		t.Errorf("delete: %s %s", del.InputSchema, del.OutputSchema)
	}
}

func TestParseRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"swagger 2":    `{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}`,
		"external ref": `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"$ref":"other.yaml#/x"}}}}}}`,
		"not a doc":    `[1,2]`,
	} {
		if _, err := openapi.Parse([]byte(doc)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
