package specterotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/backplanetest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
	specterotel "github.com/specter-mcp/specter/specterotel"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	callerTrace  = "0af7651916cd43dd8448eb211c80319c"
	callerSpan   = "b7ad6b7169203331"
	traceparent  = "00-" + callerTrace + "-" + callerSpan + "-01"
	headerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	headerParent = "00-" + headerTrace + "-00f067aa0ba902b7-01"
)

// newRouter has a sync tool, a NoReply tool and a tool that asks the
// client, instrumented with tel.
func newRouter(t *testing.T, tel *specterotel.Telemetry, opts ...specter.RouterOption) *specter.Router {
	t.Helper()
	r := specter.NewRouter("otel", "1.0.0", append([]specter.RouterOption{specter.Logger(zerolog.Nop()), tel.Instrument()}, opts...)...)
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name"))
	}, specter.Description("Greet"), params.String("name"))
	r.Tool("add", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("3")
	}, specter.Description("Add"))
	r.Tool("slow", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		parent := trace.SpanFromContext(c).SpanContext().SpanID()
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			if trace.SpanFromContext(s).SpanContext().SpanID() == parent {
				return specter.Error(errors.New("the work runs in its request's span, not a span of its own"))
			}
			return specter.Reply("slow done")
		})
	}, specter.Description("Slow"))
	r.Tool("ask", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		vals, _, err := c.Elicit("Name?", params.Must(params.New(params.String("name"))))
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply("Hello, " + vals.String("name"))
	}, specter.Description("Ask"))
	if err := tel.Observe(r); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
}

func tracing(t *testing.T) (*specterotel.Telemetry, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return specterotel.New(specterotel.TracerProvider(tp)), exp
}

// withTraceparent puts the caller's trace context in the call's _meta.
var withTraceparent = mcptest.Meta(map[string]any{"traceparent": traceparent, "tracestate": "vendor=1"})

// span returns the one ended span named name. A request's span ends once
// its response is written, which may be a moment after the client read it.
func span(t *testing.T, exp *tracetest.InMemoryExporter, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	eventually(t, func() bool {
		found = found[:0]
		for _, s := range exp.GetSpans() {
			if s.Name == name {
				found = append(found, s)
			}
		}
		return len(found) > 0
	})
	if len(found) != 1 {
		t.Fatalf("%d spans named %q among %v", len(found), name, names(exp))
	}
	return found[0]
}

// eventually waits for cond until the test's deadline (mcptest.Context),
// and leaves it to the caller's checks to say what never came.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	done := mcptest.Context(t).Done()
	for !cond() {
		select {
		case <-done:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func names(exp *tracetest.InMemoryExporter) []string {
	var n []string
	for _, s := range exp.GetSpans() {
		n = append(n, s.Name)
	}
	return n
}

func attrs(s tracetest.SpanStub) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

func TestSpansJoinTheCallersTraceInBothEras(t *testing.T) {
	tel, exp := tracing(t)
	r := newRouter(t, tel)
	srv, legacy := mcptest.NewServer(t, r.Handler(), "/mcp")
	if _, err := legacy.Initialize(context.Background(), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	stateless := mcptest.NewStatelessClient(srv.URL + "/mcp")
	stateless.HTTP = srv.Client()

	for _, tc := range []struct {
		era  string
		call func(name string, opts ...mcptest.CallOption) (*mcptest.ToolResult, *mcptest.Response, error)
	}{
		{"session", func(n string, o ...mcptest.CallOption) (*mcptest.ToolResult, *mcptest.Response, error) {
			return legacy.CallTool(context.Background(), n, map[string]any{"name": "Ada"}, o...)
		}},
		{"stateless", func(n string, o ...mcptest.CallOption) (*mcptest.ToolResult, *mcptest.Response, error) {
			return stateless.CallTool(context.Background(), n, map[string]any{"name": "Ada"}, o...)
		}},
	} {
		t.Run(tc.era, func(t *testing.T) {
			exp.Reset()
			if _, _, err := tc.call("greet", withTraceparent); err != nil {
				t.Fatal(err)
			}
			s := span(t, exp, "tools/call greet")
			if s.SpanKind != trace.SpanKindServer || s.Parent.TraceID().String() != callerTrace || s.Parent.SpanID().String() != callerSpan || !s.Parent.IsRemote() {
				t.Errorf("span %s kind %v parent %v; want a server span under the caller's %s", s.Name, s.SpanKind, s.Parent, traceparent)
			}
			if got := s.SpanContext.TraceState().Get("vendor"); got != "1" {
				t.Errorf("tracestate vendor=%q, want 1", got)
			}
			a := attrs(s)
			want := map[attribute.Key]string{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": "greet", "specter.era": tc.era,
				"specter.outcome": "ok", "mcp.protocol.version": "2025-11-25",
			}
			if tc.era == "stateless" {
				want["mcp.protocol.version"] = mcptest.StatelessVersion
			}
			for k, v := range want {
				if a[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, a[k], v, a)
				}
			}
			if a["jsonrpc.request.id"] == "" {
				t.Errorf("no jsonrpc.request.id: %v", a)
			}

			// The work of a NoReply is a child span of its request.
			exp.Reset()
			res, _, err := tc.call("slow", withTraceparent)
			if err != nil || res.IsError {
				t.Fatalf("slow: %+v %v", res, err)
			}
			req, work := span(t, exp, "tools/call slow"), span(t, exp, "tools/call work")
			if work.Parent.SpanID() != req.SpanContext.SpanID() || req.Parent.SpanID().String() != callerSpan {
				t.Errorf("work's parent %v, request %v under %v", work.Parent.SpanID(), req.SpanContext.SpanID(), req.Parent.SpanID())
			}

			// A call of an unknown tool fails, and says so.
			exp.Reset()
			if _, _, err := tc.call("nope"); err == nil {
				t.Fatal("unknown tool answered")
			}
			s = span(t, exp, "tools/call")
			if a := attrs(s); a["error.type"] != "-32602" || a["rpc.response.status_code"] != "-32602" || a["specter.outcome"] != "error" || s.Status.Code.String() != "Error" {
				t.Errorf("failed call: status %v attributes %v", s.Status, a)
			}
		})
	}
}

func TestHTTPHeadersCarryTheTraceWithoutMeta(t *testing.T) {
	tel, exp := tracing(t)
	r := newRouter(t, tel)
	srv, _ := mcptest.NewServer(t, r.Handler(), "/mcp")
	stateless := mcptest.NewStatelessClient(srv.URL + "/mcp")
	stateless.HTTP = srv.Client()
	stateless.Header.Set("traceparent", headerParent)
	if _, _, err := stateless.CallTool(context.Background(), "add", nil); err != nil {
		t.Fatal(err)
	}
	if s := span(t, exp, "tools/call add"); s.Parent.TraceID().String() != headerTrace {
		t.Errorf("parent %v, want the trace of the traceparent header", s.Parent)
	}
	// _meta names the message's own context and wins over the header.
	exp.Reset()
	if _, _, err := stateless.CallTool(context.Background(), "add", nil, withTraceparent); err != nil {
		t.Fatal(err)
	}
	if s := span(t, exp, "tools/call add"); s.Parent.TraceID().String() != callerTrace {
		t.Errorf("parent %v, want the trace of _meta", s.Parent)
	}
	// A traceparent in _meta that is not a string names no context.
	exp.Reset()
	if _, _, err := stateless.CallTool(context.Background(), "add", nil, mcptest.Meta(map[string]any{"traceparent": 7})); err != nil {
		t.Fatal(err)
	}
	if s := span(t, exp, "tools/call add"); s.Parent.TraceID().String() != headerTrace {
		t.Errorf("parent %v, want the trace of the header", s.Parent)
	}
}

func TestServerToClientRequestIsAChildSpan(t *testing.T) {
	tel, exp := tracing(t)
	r := newRouter(t, tel)
	_, c := mcptest.NewServer(t, r.Handler(), "/mcp")
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	c.OnRequest = func(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
	}
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	res, _, err := c.CallTool(context.Background(), "ask", nil, withTraceparent)
	if err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	req, out := span(t, exp, "tools/call ask"), span(t, exp, "elicitation/create")
	if out.SpanKind != trace.SpanKindClient || out.Parent.SpanID() != req.SpanContext.SpanID() {
		t.Errorf("elicitation span kind %v parent %v; want a client span under %v", out.SpanKind, out.Parent.SpanID(), req.SpanContext.SpanID())
	}
}

// A session id reaches spans only with SessionIDs: by default neither a
// session-era request's span nor the span of the request it sends the
// client carries mcp.session.id (issue 19, item 19).
func TestSessionIDOnSpansIsOptIn(t *testing.T) {
	for _, withIDs := range []bool{false, true} {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		opts := []specterotel.Option{specterotel.TracerProvider(tp)}
		if withIDs {
			opts = append(opts, specterotel.SessionIDs())
		}
		r := newRouter(t, specterotel.New(opts...))
		_, c := mcptest.NewServer(t, r.Handler(), "/mcp")
		c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
		c.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) {
			return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
		}
		if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
			t.Fatal(err)
		}
		if res, _, err := c.CallTool(context.Background(), "ask", nil); err != nil || res.IsError {
			t.Fatalf("%+v %v", res, err)
		}
		want := ""
		if withIDs {
			want = c.SessionID
		}
		for _, name := range []string{"tools/call ask", "elicitation/create"} {
			if got := attrs(span(t, exp, name))["mcp.session.id"]; got != want {
				t.Errorf("SessionIDs %v: %s has mcp.session.id %q, want %q", withIDs, name, got, want)
			}
		}
		_ = tp.Shutdown(context.Background())
	}
}

// points returns the data points of the duration histogram by the value
// of key, for method.
func points(t *testing.T, reader *sdkmetric.ManualReader, method string, key attribute.Key) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() != method {
					continue
				}
				v, _ := dp.Attributes.Value(key)
				p := out[v.AsString()]
				p.Count += dp.Count
				p.Sum += dp.Sum
				out[v.AsString()] = p
			}
		}
	}
	return out
}

// gauges returns the last value of every int64 gauge and sum.
func gauges(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					out[m.Name] += dp.Value
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					out[m.Name] += dp.Value
				}
			}
		}
	}
	return out
}

func TestMetricsCountEveryCallAndBoundTheirLabels(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	tel := specterotel.New(specterotel.MeterProvider(mp))
	r := newRouter(t, tel)
	_, c := mcptest.NewServer(t, r.Handler(), "/mcp")
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 3 {
		if _, _, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, _, err := c.CallTool(ctx, "add", nil); err != nil {
			t.Fatal(err)
		}
	}
	// 10,000 names nothing declares, from 8 clients at once.
	const unknown = 10_000
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < unknown; i += 8 {
				if _, _, err := c.CallTool(ctx, fmt.Sprintf("tool-%d", i), nil); err == nil {
					errs <- fmt.Errorf("tool-%d answered", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "no/such/method", nil); err != nil {
		t.Fatal(err)
	}

	// The last durations are recorded as their responses end.
	var byTool map[string]metricdata.HistogramDataPoint[float64]
	eventually(t, func() bool {
		byTool = points(t, reader, "tools/call", "gen_ai.tool.name")
		return byTool[specterotel.Unknown].Count == unknown && gauges(t, reader)["specter.server.requests.active"] == 0 &&
			points(t, reader, specterotel.Unknown, "mcp.method.name")[specterotel.Unknown].Count == 1
	})
	if len(byTool) != 3 {
		t.Errorf("%d gen_ai.tool.name values, want greet, add and %s: %v", len(byTool), specterotel.Unknown, keysOf(byTool))
	}
	for name, want := range map[string]uint64{"greet": 3, "add": 2, specterotel.Unknown: unknown} {
		if p := byTool[name]; p.Count != want || p.Sum <= 0 {
			t.Errorf("%s: count %d sum %v, want %d calls taking some time", name, p.Count, p.Sum, want)
		}
	}
	if p := points(t, reader, specterotel.Unknown, "mcp.method.name"); p[specterotel.Unknown].Count != 1 {
		t.Errorf("an unknown method counts under %s: %v", specterotel.Unknown, p)
	}
	g := gauges(t, reader)
	if g["specter.server.sessions"] != 1 || g["specter.server.requests.active"] != 0 {
		t.Errorf("gauges %v, want 1 session and no request in flight", g)
	}
	if g["specter.server.listeners"] != 0 || g["specter.server.streams"] != 0 {
		t.Errorf("gauges %v, want no stream", g)
	}
	s, err := c.Listen(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	eventually(t, func() bool { return gauges(t, reader)["specter.server.streams"] == 1 })
	if gauges(t, reader)["specter.server.streams"] != 1 {
		t.Fatal("the GET stream is not counted")
	}
}

func keysOf[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	return k
}

// TestCountingBackplaneKeepsTheContract: the wrapper passes every
// operation through unchanged.
func TestCountingBackplaneKeepsTheContract(t *testing.T) {
	tel := specterotel.New()
	backplanetest.Run(t, func(*testing.T) (backplane.Backplane, backplane.Backplane) {
		m := tel.Backplane(backplane.NewMemory())
		return m, m
	})
}

// failingPublish is an in-memory backplane whose Publish fails.
type failingPublish struct{ backplane.Backplane }

func (failingPublish) Publish(context.Context, *backplane.Message) error {
	return errors.New("redis: connection refused")
}

func TestBackplaneErrorsAreCounted(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	tel := specterotel.New(specterotel.MeterProvider(mp))
	bp := tel.Backplane(failingPublish{backplane.NewMemory()})
	r := newRouter(t, tel, specter.Backplane(bp))
	before := gauges(t, reader)["specter.backplane.errors"] // declaring notifies too
	r.NotifyToolsChanged()
	r.NotifyToolsChanged()
	// An unknown session is an answer (404), not a backplane failure.
	if _, err := bp.LoadSession(context.Background(), "nope"); !errors.Is(err, backplane.ErrNotFound) {
		t.Fatal(err)
	}
	if bp.Sharing() != backplane.InProcess {
		t.Error("the wrapper changes the backplane's sharing")
	}
	if got := gauges(t, reader)["specter.backplane.errors"] - before; got != 2 {
		t.Errorf("backplane errors %d, want the 2 failed publishes", got)
	}
}
