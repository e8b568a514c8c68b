package specterotel_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/mcptest"
	specterotel "github.com/specter-mcp/specter/specterotel"
)

// An application chooses its providers (here a tracer provider that keeps
// spans in memory) and instruments its router.
func ExampleNew() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	tel := specterotel.New(specterotel.TracerProvider(tp))
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()),
		tel.Instrument(), specter.Backplane(tel.Backplane(backplane.NewMemory())))
	if err := tel.Observe(r); err != nil {
		panic(err)
	}
	r.Tool("ping", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("pong")
	}, specter.Description("Ping"))
	defer r.Shutdown(context.Background())

	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	c := mcptest.NewStatelessClient(srv.URL)
	c.HTTP = srv.Client()
	_, _, _ = c.CallTool(context.Background(), "ping", nil, mcptest.Meta(map[string]any{
		"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}))
	s := spans.GetSpans()[0]
	fmt.Println(s.Name, s.Parent.TraceID())
	// Output: tools/call ping 0af7651916cd43dd8448eb211c80319c
}
