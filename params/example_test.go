package params_test

import (
	"encoding/json"
	"fmt"

	"github.com/specter-mcp/specter/params"
)

func ExampleNew() {
	schema, err := params.New(
		params.String("city", params.Required(), params.Validate("min=1,max=64"),
			params.Description("City to forecast")),
		params.Integer("days", params.Default(3), params.Validate("min=1,max=14")),
		params.Enum("units", []string{"metric", "imperial"}),
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema.JSON()))

	args, err := schema.Validate(json.RawMessage(`{"city":"Paris"}`))
	fmt.Println(args.String("city"), args.Int("days"), args.Has("units"), err)

	_, err = schema.Validate(json.RawMessage(`{"days":"5","units":"kelvin"}`))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City to forecast","minLength":1,"maxLength":64},"days":{"type":"integer","minimum":1,"maximum":14,"default":3},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}
	// Paris 3 false <nil>
	// invalid arguments: "city" is required; "days" must be an integer, got string; "units" must be one of: "metric", "imperial"
}

func ExampleFor() {
	type Forecast struct {
		City  string   `json:"city" validate:"required,min=1,max=64" description:"City to forecast"`
		Days  int      `json:"days" validate:"min=1,max=14" default:"3"`
		Hours []string `json:"hours,omitempty" validate:"max=24,dive,datetime=15:04"`
	}
	schema, err := params.For[Forecast]()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema.JSON()))

	var f Forecast
	err = schema.Bind(json.RawMessage(`{"city":"Oslo","hours":["09:00"]}`), &f)
	fmt.Printf("%+v %v\n", f, err)

	err = schema.Bind(json.RawMessage(`{"days":30,"hours":["9am"]}`), &f)
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City to forecast","minLength":1,"maxLength":64},"days":{"type":"integer","minimum":1,"maximum":14,"default":3},"hours":{"type":"array","maxItems":24,"items":{"type":"string"}}},"required":["city"]}
	// {City:Oslo Days:3 Hours:[09:00]} <nil>
	// invalid arguments: "city" is required; "days" must be 14 or less; "hours[0]" must be a date-time in the layout "15:04"
}

func ExampleRaw() {
	schema, err := params.Raw([]byte(`{"type":"object","properties":{"q":{"type":"string","minLength":3}},"required":["q"]}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema.JSON()))

	args, err := schema.Validate(json.RawMessage(`{"q":"gophers","limit":10}`))
	fmt.Println(args.String("q"), args.Int("limit"), err)

	_, err = schema.Validate(json.RawMessage(`{"q":"go"}`))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"q":{"type":"string","minLength":3}},"required":["q"]}
	// gophers 10 <nil>
	// invalid arguments: "q" must be at least 3 characters long
}

func ExampleValidationError() {
	schema, _ := params.New(params.Array("tags", params.String(""), params.Validate("max=2,dive,alphanum")))
	_, err := schema.Validate(json.RawMessage(`{"tags":["ok","not ok","x"]}`))
	if verr, ok := err.(*params.ValidationError); ok {
		for _, f := range verr.Fields {
			fmt.Printf("%s %s %q\n", f.Path, f.Rule, f.Param)
		}
	}
	// Output:
	// tags[1] alphanum ""
	// tags max "2"
}

func ExamplePattern() {
	schema, err := params.New(params.String("sku", params.Required(), params.Pattern(`^[A-Z]{3}-\d{4}$`)))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema.JSON()))
	_, err = schema.Validate(json.RawMessage(`{"sku":"abc-12"}`))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}},"required":["sku"]}
	// invalid arguments: "sku" must match the pattern ^[A-Z]{3}-\d{4}$
}
