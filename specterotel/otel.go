package specterotel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/internal/jsonscan"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

// scope names this instrumentation to the providers.
const scope = "github.com/specter-mcp/specter/specterotel"

// Unknown is the label value of a name the client sent that nothing
// declares, and of a method the router does not serve.
const Unknown = "_unknown"

// Attribute keys: the OpenTelemetry semantic conventions for MCP, and
// Specter's own.
const (
	keyMethod     = attribute.Key("mcp.method.name")
	keyVersion    = attribute.Key("mcp.protocol.version")
	keySession    = attribute.Key("mcp.session.id")
	keyResource   = attribute.Key("mcp.resource.uri")
	keyRequestID  = attribute.Key("jsonrpc.request.id")
	keyTool       = attribute.Key("gen_ai.tool.name")
	keyPrompt     = attribute.Key("gen_ai.prompt.name")
	keyOperation  = attribute.Key("gen_ai.operation.name")
	keyStatusCode = attribute.Key("rpc.response.status_code")
	keyErrorType  = attribute.Key("error.type")
	keyEra        = attribute.Key("specter.era")
	keyOutcome    = attribute.Key("specter.outcome")
	keyDeclared   = attribute.Key("specter.declaration") // a resource (URI or template) or completed item, as declared
	keyBackplane  = attribute.Key("specter.backplane.operation")
)

// Option configures New.
type Option func(*Telemetry)

// TracerProvider sets where spans go. Default: otel.GetTracerProvider().
func TracerProvider(tp trace.TracerProvider) Option {
	return func(t *Telemetry) { t.tp = tp }
}

// MeterProvider sets where metrics go. Default: otel.GetMeterProvider().
func MeterProvider(mp metric.MeterProvider) Option {
	return func(t *Telemetry) { t.mp = mp }
}

// Propagator sets how trace context is read from HTTP headers and _meta.
// Default: otel.GetTextMapPropagator(), or W3C trace context and baggage
// when that propagates nothing.
func Propagator(p propagation.TextMapPropagator) Option {
	return func(t *Telemetry) { t.prop = p }
}

// Telemetry reports one or more routers to OpenTelemetry.
type Telemetry struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator

	tracer   trace.Tracer
	meter    metric.Meter
	duration metric.Float64Histogram
	active   metric.Int64UpDownCounter
	bpErrors metric.Int64Counter
}

// New returns telemetry on the given providers, or the global ones.
// Instruments the meter refuses are replaced by no-ops; the error of
// otel.Handle reports them.
func New(opts ...Option) *Telemetry {
	t := &Telemetry{}
	for _, o := range opts {
		o(t)
	}
	if t.tp == nil {
		t.tp = otel.GetTracerProvider()
	}
	if t.mp == nil {
		t.mp = otel.GetMeterProvider()
	}
	if t.prop == nil {
		t.prop = otel.GetTextMapPropagator()
		if len(t.prop.Fields()) == 0 {
			t.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		}
	}
	t.tracer = t.tp.Tracer(scope)
	t.meter = t.mp.Meter(scope)
	var err error
	if t.duration, err = t.meter.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests as the server saw them, from dispatch to the response"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)); err != nil {
		otel.Handle(err)
		t.duration = noop.Float64Histogram{}
	}
	if t.active, err = t.meter.Int64UpDownCounter("specter.server.requests.active", metric.WithUnit("{request}"),
		metric.WithDescription("MCP requests in flight")); err != nil {
		otel.Handle(err)
		t.active = noop.Int64UpDownCounter{}
	}
	if t.bpErrors, err = t.meter.Int64Counter("specter.backplane.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Backplane operations that failed")); err != nil {
		otel.Handle(err)
		t.bpErrors = noop.Int64Counter{}
	}
	return t
}

// Instrument is the router option that reports the router's requests.
func (t *Telemetry) Instrument() specter.RouterOption { return specter.Instrument(t.Probe) }

// Observe registers the gauges of r: its sessions, attached GET streams
// and subscriptions/listen streams on this node. Call it once per router.
func (t *Telemetry) Observe(r *specter.Router) error {
	sessions, err := t.meter.Int64ObservableGauge("specter.server.sessions", metric.WithUnit("{session}"),
		metric.WithDescription("Sessions this node holds"))
	if err != nil {
		return fmt.Errorf("specterotel: %w", err)
	}
	streams, err := t.meter.Int64ObservableGauge("specter.server.streams", metric.WithUnit("{stream}"),
		metric.WithDescription("GET streams attached to this node"))
	if err != nil {
		return fmt.Errorf("specterotel: %w", err)
	}
	listeners, err := t.meter.Int64ObservableGauge("specter.server.listeners", metric.WithUnit("{stream}"),
		metric.WithDescription("Open subscriptions/listen streams on this node"))
	if err != nil {
		return fmt.Errorf("specterotel: %w", err)
	}
	_, err = t.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(sessions, int64(r.Sessions()))
		o.ObserveInt64(streams, int64(r.StreamsAttached()))
		o.ObserveInt64(listeners, int64(r.Listeners()))
		return nil
	}, sessions, streams, listeners)
	if err != nil {
		return fmt.Errorf("specterotel: %w", err)
	}
	return nil
}

// Probe is the observe.Probe behind Instrument, for routers that combine
// it with probes of their own.
func (t *Telemetry) Probe(ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
	switch op.Kind {
	case observe.Work:
		ctx, span := t.tracer.Start(ctx, op.Method+" work", trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(keyMethod.String(op.Method)))
		return ctx, func(e observe.End) { endChild(span, e) }
	case observe.Outbound:
		ctx, span := t.tracer.Start(ctx, op.Method, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(keyMethod.String(op.Method), keySession.String(op.SessionID)))
		return ctx, func(e observe.End) { endChild(span, e) }
	}
	return t.request(ctx, op)
}

// request starts the server span and the measurement of a request.
func (t *Telemetry) request(ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
	start := time.Now()
	if op.Header != nil {
		ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(op.Header))
	}
	if m := metaCarrier(op.Meta); m != nil {
		// _meta names the context of this very message; HTTP headers
		// may name a proxy's or a batch's.
		ctx = t.prop.Extract(ctx, m)
	}
	era := "session"
	if op.Stateless {
		era = "stateless"
	}
	attrs := []attribute.KeyValue{keyMethod.String(op.Method), keyVersion.String(op.Version), keyEra.String(era)}
	if op.SessionID != "" {
		attrs = append(attrs, keySession.String(op.SessionID))
	}
	if len(op.ID) > 0 {
		attrs = append(attrs, keyRequestID.String(strings.Trim(string(op.ID), `"`)))
	}
	switch op.Method {
	case mcp.MethodToolsCall:
		attrs = append(attrs, keyTool.String(op.Name), keyOperation.String("execute_tool"))
	case mcp.MethodPromptsGet:
		attrs = append(attrs, keyPrompt.String(op.Name))
	case mcp.MethodResourcesRead:
		attrs = append(attrs, keyResource.String(op.Name))
	}
	name := methodLabel(op.Method)
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	method := metric.WithAttributes(keyMethod.String(name))
	t.active.Add(ctx, 1, method)
	return ctx, func(e observe.End) {
		t.active.Add(ctx, -1, method)
		labels := []attribute.KeyValue{keyOutcome.String(e.Outcome.String())}
		if e.Code != 0 {
			code := strconv.Itoa(e.Code)
			labels = append(labels, keyErrorType.String(code))
			span.SetAttributes(keyStatusCode.String(code))
		}
		span.SetAttributes(labels...)
		if e.Outcome == observe.Failed {
			span.SetStatus(codes.Error, "JSON-RPC error "+strconv.Itoa(e.Code))
		}
		if k, ok := declarationKey(name); ok {
			d := e.Declaration
			if d == "" {
				d = Unknown
			} else if k != keyDeclared {
				span.SetName(op.Method + " " + d)
			}
			labels = append(labels, k.String(d))
		}
		labels = append(labels, keyMethod.String(name))
		span.End()
		t.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(labels...))
	}
}

// methods are the request methods of MCP, the values a method label takes.
var methods = map[string]bool{
	mcp.MethodInitialize: true, mcp.MethodPing: true, mcp.MethodSetLevel: true, mcp.MethodToolsList: true,
	mcp.MethodToolsCall: true, mcp.MethodPromptsList: true, mcp.MethodPromptsGet: true,
	mcp.MethodResourcesList: true, mcp.MethodResourceTemplatesList: true, mcp.MethodResourcesRead: true,
	mcp.MethodResourcesSubscribe: true, mcp.MethodResourcesUnsubscribe: true, mcp.MethodComplete: true,
	mcp.MethodDiscover: true, mcp.MethodSubscriptionsListen: true, mcp.MethodSkillsList: true,
	mcp.MethodSkillsGet: true, mcp.MethodResourcesDirectoryRead: true, mcp.MethodTasksGet: true,
	mcp.MethodTasksUpdate: true, mcp.MethodTasksCancel: true,
}

// methodLabel is method if MCP defines it, or Unknown: the client names
// the method, and must not grow the label set.
func methodLabel(method string) string {
	if methods[method] {
		return method
	}
	return Unknown
}

// declarationKey is the metric label of the declaration a method calls.
func declarationKey(method string) (attribute.Key, bool) {
	switch method {
	case mcp.MethodToolsCall:
		return keyTool, true
	case mcp.MethodPromptsGet:
		return keyPrompt, true
	case mcp.MethodResourcesRead, mcp.MethodComplete:
		return keyDeclared, true
	}
	return "", false
}

// endChild ends the span of work or of a server-to-client request.
func endChild(span trace.Span, e observe.End) {
	span.SetAttributes(keyOutcome.String(e.Outcome.String()))
	if e.Err != nil {
		span.RecordError(e.Err)
		span.SetStatus(codes.Error, e.Err.Error())
	}
	span.End()
}

// metaCarrier reads the W3C trace context keys of a _meta object; nil
// when it has none. It decodes without reflection: it runs per request.
func metaCarrier(meta json.RawMessage) propagation.MapCarrier {
	if !bytes.Contains(meta, []byte(`"traceparent"`)) {
		return nil
	}
	v, _ := jsonscan.Decode(meta)
	m, _ := v.(map[string]any)
	tp, _ := m["traceparent"].(string)
	if tp == "" {
		return nil
	}
	c := propagation.MapCarrier{"traceparent": tp}
	for _, k := range [...]string{"tracestate", "baggage"} {
		if s, _ := m[k].(string); s != "" {
			c[k] = s
		}
	}
	return c
}
