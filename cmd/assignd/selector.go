package main

import (
	"context"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel/metric"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
)

// newPolicy builds the policy source that chooses the assignor of every
// Assign call and answers ExplainPolicy. With --policy it loads the file,
// refusing to start when it is invalid (serving something else than the
// operator wrote would be worse than not serving), and watches it; without,
// it serves the embedded default policy. The caller must Close it after
// the server has shut down.
func newPolicy(ctx context.Context, c config, logger *slog.Logger, mp metric.MeterProvider, extra ...policy.Option) (*policy.Source, error) {
	opts := append([]policy.Option{
		policy.WithLogger(logger),
		policy.WithMeterProvider(mp),
		policy.WithShadowConcurrency(c.shadowConcurrency),
		policy.WithShadowMaxPartitions(c.shadowMaxPartitions),
	}, extra...)
	if c.policy == "" {
		return policy.NewSource(nil, opts...)
	}
	return policy.Watch(ctx, c.policy, opts...)
}

// reloadOnSignal re-reads the policy file whenever hup delivers, until ctx
// ends: SIGHUP is the operator's "read it now", for filesystems that do
// not notify and for scripts that want the reload done before they go on.
func reloadOnSignal(ctx context.Context, src *policy.Source, hup <-chan os.Signal, logger *slog.Logger, file string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		if file == "" {
			logger.InfoContext(ctx, "SIGHUP: no --policy file to re-read; serving the embedded default policy")
			continue
		}
		if err := src.Reload(ctx); err != nil {
			logger.WarnContext(ctx, "SIGHUP: policy file rejected; the last good revision keeps serving",
				"file", file, "revision", src.Policy().Revision(), "error", err)
			continue
		}
		logger.InfoContext(ctx, "SIGHUP: policy file re-read", "file", file, "revision", src.Policy().Revision())
	}
}

// recordShadow keeps each group's latest shadow comparison in h, for the
// console.
func recordShadow(h *history.Store) func(policy.ShadowReport) {
	side := func(s policy.ShadowSide) *assigndv1.ShadowSide {
		return &assigndv1.ShadowSide{Assignor: s.Assignor, Moved: int32(s.Moved), Imbalance: int32(s.Imbalance),
			FollowupRequired: s.Followup, EngineTime: durationpb.New(s.Took)}
	}
	return func(r policy.ShadowReport) {
		h.RecordShadow(&assigndv1.ShadowComparison{
			Time: timestamppb.New(r.Time), GroupId: r.Group, GenerationId: r.Generation,
			PolicyRule: r.Rule, PolicyRevision: r.Revision, Primary: side(r.Primary), Shadow: side(r.Shadow),
		})
	}
}
