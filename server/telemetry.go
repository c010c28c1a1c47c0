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
	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/assignd/assignd/internal/buildinfo"
)

// Telemetry holds the OpenTelemetry providers of one assignd process:
// metrics always, exported through the OTel Prometheus exporter into a
// registry of its own (plus Go runtime and process collectors and
// assignd_build_info), and traces only when the environment asks for them
// (see [TracingConfigured]).
type Telemetry struct {
	meters   *sdkmetric.MeterProvider
	tracers  trace.TracerProvider
	sdkTrace *sdktrace.TracerProvider
	registry *prometheus.Registry
}

// otlpEndpointVars are the standard variables that name an OTLP endpoint.
var otlpEndpointVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"}

// TracingConfigured reports whether getenv asks for traces: an OTLP
// endpoint is named, or OTEL_TRACES_EXPORTER chooses an exporter (otlp,
// console), and neither OTEL_TRACES_EXPORTER=none nor OTEL_SDK_DISABLED=true
// turns them off. Without any of these assignd exports nothing, rather
// than the specification's default of OTLP to localhost, which would log
// an export error every few seconds on every machine without a collector.
func TracingConfigured(getenv func(string) string) bool {
	exporter := getenv("OTEL_TRACES_EXPORTER")
	if exporter == "none" || getenv("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	if exporter != "" {
		return true
	}
	for _, v := range otlpEndpointVars {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}

// rpcDurationBuckets replace otelgrpc's buckets for
// rpc.server.call.duration, whose first bound (5 ms) holds every ordinary
// Assign; these are the ones of assignd_assign_duration_seconds, from
// 100 µs, so that the two histograms can be compared bucket by bucket.
var rpcDurationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// NewTelemetry sets up metrics and, when TracingConfigured(os.Getenv),
// trace export configured by the standard OpenTelemetry variables through
// the contrib autoexport package: OTEL_TRACES_EXPORTER (otlp, console,
// none), OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
// (http/protobuf, the specification's default, or grpc),
// OTEL_EXPORTER_OTLP_*ENDPOINT, *HEADERS, *TIMEOUT and the rest.
// serviceVersion is reported as service.version; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override the resource as usual.
//
// The Prometheus series carry no otel_scope_* labels: every assignd metric
// name belongs to one instrumentation scope (assignd's own or otelgrpc's),
// so the labels would only repeat the library name and version on every
// series.
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
	bi := buildinfo.Read()
	t.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "assignd_build_info",
			Help:        "Always 1; the labels say which build of assignd is running.",
			ConstLabels: prometheus.Labels{"version": bi.Version, "revision": bi.Revision, "go": bi.Go},
		}, func() float64 { return 1 }),
	)
	exporter, err := otelprom.New(otelprom.WithRegisterer(t.registry), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	t.meters = sdkmetric.NewMeterProvider(
		sdkmetric.WithReader(exporter),
		sdkmetric.WithResource(res),
		sdkmetric.WithView(sdkmetric.NewView(
			sdkmetric.Instrument{Name: "rpc.server.call.duration"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: rpcDurationBuckets}},
		)),
	)
	if TracingConfigured(os.Getenv) {
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("telemetry: trace exporter: %w", err), t.meters.Shutdown(ctx))
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
