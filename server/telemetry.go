package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Telemetry holds the OpenTelemetry providers of one assignd process:
// metrics always, exported through the OTel Prometheus exporter into a
// registry of its own (plus Go runtime and process collectors), and traces
// only when an OTLP endpoint is configured in the environment.
type Telemetry struct {
	meters   *sdkmetric.MeterProvider
	tracers  trace.TracerProvider
	sdkTrace *sdktrace.TracerProvider
	registry *prometheus.Registry
}

// otlpEndpointVars are the standard variables that name an OTLP endpoint;
// traces are exported only when one of them is set.
var otlpEndpointVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"}

// TracingConfigured reports whether getenv names an OTLP endpoint.
func TracingConfigured(getenv func(string) string) bool {
	for _, v := range otlpEndpointVars {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}

// NewTelemetry sets up metrics and, when TracingConfigured(os.Getenv),
// OTLP/gRPC trace export configured by the standard OTEL_EXPORTER_OTLP_*
// variables. serviceVersion is reported as service.version; OTEL_SERVICE_NAME
// and OTEL_RESOURCE_ATTRIBUTES override the resource as usual.
func NewTelemetry(ctx context.Context, serviceVersion string) (*Telemetry, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "assignd"), attribute.String("service.version", serviceVersion)),
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	t := &Telemetry{registry: prometheus.NewRegistry(), tracers: tracenoop.NewTracerProvider()}
	t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exporter, err := otelprom.New(otelprom.WithRegisterer(t.registry))
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	t.meters = sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithResource(res))
	if TracingConfigured(os.Getenv) {
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("telemetry: OTLP trace exporter: %w", err), t.meters.Shutdown(ctx))
		}
		t.sdkTrace = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tracers = t.sdkTrace
	}
	return t, nil
}

// MeterProvider is the provider to pass to WithMeterProvider.
func (t *Telemetry) MeterProvider() metric.MeterProvider { return t.meters }

// TracerProvider is the provider to pass to WithTracerProvider: the OTLP
// one, or a no-op one when tracing is not configured.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tracers }

// Tracing reports whether traces are exported.
func (t *Telemetry) Tracing() bool { return t.sdkTrace != nil }

// MetricsHandler serves the registry in the Prometheus exposition format.
func (t *Telemetry) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{Registry: t.registry})
}

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	err := t.meters.Shutdown(ctx)
	if t.sdkTrace != nil {
		err = errors.Join(err, t.sdkTrace.Shutdown(ctx))
	}
	return err
}
