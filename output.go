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

// toolResult shapes a tool's reply and, when the tool has an output
// schema and the client's version carries structured content, checks it.
func (d *declaration) toolResult(v any, structured bool) (*mcp.CallToolResult, error) {
	res, err := methods.ToolResult(v, structured)
	if err != nil || d.output == nil || !structured || res.IsError {
		return res, err
	}
	if len(res.StructuredContent) == 0 {
		return nil, fmt.Errorf("tool %q declares an output schema, but its result has no structuredContent (reply with a value that encodes to a JSON object)", d.name)
	}
	if _, err := d.output.Validate(res.StructuredContent); err != nil {
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
