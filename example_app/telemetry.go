package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	specterotel "github.com/specter-mcp/specter/specterotel"
)

// stdoutTelemetry exports the router's spans, and its metrics every
// interval, as JSON lines to w. stop flushes what is left and ends the
// exporters. An application would use OTLP exporters the same way.
func stdoutTelemetry(w io.Writer, interval time.Duration) (tel *specterotel.Telemetry, stop func(context.Context) error, err error) {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: %w", err)
	}
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(w))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(interval))))
	stop = func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }
	return specterotel.New(specterotel.TracerProvider(tp), specterotel.MeterProvider(mp)), stop, nil
}
