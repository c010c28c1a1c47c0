package server

import (
	"context"
	"log/slog"
	"strings"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// callLogger adapts slog to the logging interceptor.
func callLogger(l *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		l.Log(ctx, slog.Level(lvl), msg, fields...)
	})
}

// loggingOptions log one line per finished call, never payloads, with the
// call report's domain fields (group, assignor, members, partitions, moved,
// ...) beside the interceptor's method, code and duration.
func loggingOptions() []logging.Option {
	return []logging.Option{
		logging.WithLogOnEvents(logging.FinishCall),
		logging.WithFieldsFromContext(logFields),
		logging.WithDurationField(logging.DurationToDurationField),
		// Constant for a server of unary calls: noise, and every field
		// costs on each call.
		logging.WithDisableLoggingFields(logging.SystemTag[0], logging.ComponentFieldKey, logging.MethodTypeFieldKey),
	}
}

// logged excludes health checks and reflection from the call log: probes
// run every few seconds and would drown the lines that matter.
func logged(_ context.Context, c interceptors.CallMeta) bool {
	return c.Service != healthpb.Health_ServiceDesc.ServiceName &&
		!strings.HasPrefix(c.Service, "grpc.reflection.")
}
