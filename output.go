package specter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Output declares a tool's result type: the tool's outputSchema is derived
// from T with the tags its params use (json, description, title, validate,
// default, pattern), and the tool replies with a T (or *T), which becomes
// its structuredContent plus the same JSON as text.
//
// Whenever a tool has an output schema (Output or OutputSchema), each
// successful result's structuredContent is checked against it before it
// is sent, with the schema compiled once at declaration. A result that
// does not conform, or that lacks structuredContent, is a bug in the
// server: it goes to the error reporter (OnError) and the log, and the
// client gets an internal error instead of content its schema promised
// otherwise. A result with isError (ToolError, invalid arguments) is not
// checked. Clients of 2025-03-26, which has no structured content, get
// the text alone, unchecked.
//
//	specter.Tool(r, "forecast", forecast, specter.Description("Weather"),
//		specter.Output[Forecast]())
func Output[T any]() DeclOption {
	s, err := params.For[T]()
	return declOption(func(d *declaration) {
		if err != nil {
			d.optErr = fmt.Errorf("Output: %w", err)
			return
		}
		d.outputSchema = s.JSON()
	})
}

// ErrNoStructuredContent is what OutputMismatch's function gets for a
// result without structuredContent.
var ErrNoStructuredContent = errors.New("the result has no structuredContent")

// OutputMismatch answers, instead of an internal error, a tool's
// successful result that breaks its output schema: f gets the result and
// why (the schema's validation error, or ErrNoStructuredContent) and
// returns what the client gets, usually an isError result for the model
// to read. Use it where the results come from a third party (a proxied
// API) rather than the server's own code. With it, results are checked
// for clients of every version, 2025-03-26 included, and the schema is
// compiled and checked once, by the router.
func OutputMismatch(f func(res *mcp.CallToolResult, why error) *mcp.CallToolResult) DeclOption {
	return declOption(func(d *declaration) { d.mismatch = f })
}

// toolResult shapes a tool's reply and, when the tool has an output
// schema and the client's version carries structured content, checks it.
func (d *declaration) toolResult(v any, structured bool) (*mcp.CallToolResult, error) {
	res, err := methods.ToolResult(v, structured)
	if err != nil || d.output == nil || res.IsError || (!structured && d.mismatch == nil) {
		return res, err
	}
	if len(res.StructuredContent) == 0 {
		if d.mismatch != nil {
			return d.mismatch(res, ErrNoStructuredContent), nil
		}
		return nil, fmt.Errorf("tool %q declares an output schema, but its result has no structuredContent (reply with a value that encodes to a JSON object)", d.name)
	}
	if _, err := d.output.Validate(res.StructuredContent); err != nil {
		if d.mismatch != nil {
			return d.mismatch(res, err), nil
		}
		// Not wrapped: a *params.ValidationError would read as the
		// caller's invalid arguments.
		msg := err.Error()
		var ve *params.ValidationError
		if errors.As(err, &ve) {
			parts := make([]string, len(ve.Fields))
			for i, f := range ve.Fields {
				parts[i] = f.Message
			}
			msg = strings.Join(parts, "; ")
		}
		return nil, fmt.Errorf("tool %q: structuredContent does not match its output schema: %s", d.name, msg)
	}
	return res, nil
}
