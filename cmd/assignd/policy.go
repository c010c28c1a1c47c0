package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
)

// policyFlags declare the policy file and its shadow evaluations.
func policyFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.policy, "policy", "", "policy `file` (YAML; see examples/policy.yaml) choosing each group's assignor; watched and hot-reloaded, SIGHUP re-reads it now. "+
		"assignd does not start on an invalid file; an invalid edit is rejected and the last good revision keeps serving. Empty: the embedded default policy")
	fs.IntVar(&c.shadowConcurrency, "shadow-concurrency", policy.DefaultShadowConcurrency, "shadow evaluations of the policy run at once, in the background; when all are busy a shadow is skipped; 0 disables them")
	fs.IntVar(&c.shadowMaxPartitions, "shadow-max-partitions", policy.DefaultShadowMaxPartitions, "skip shadow evaluation for groups with more partitions than this; 0 means no limit")
}

// newPolicy builds the policy source that chooses the assignor of every
// Assign call and answers ExplainPolicy. With --policy it loads the file,
// refusing to start when it is invalid (serving something else than the
// operator wrote would be worse than not serving), and watches it; without,
// it serves the embedded default policy. The caller must Close it after
// the server has shut down.
func newPolicy(ctx context.Context, c config, logger *slog.Logger, mp metric.MeterProvider, h *history.Store) (*policy.Source, error) {
	opts := []policy.Option{
		policy.WithLogger(logger),
		policy.WithMeterProvider(mp),
		policy.WithShadowConcurrency(c.shadowConcurrency),
		policy.WithShadowMaxPartitions(c.shadowMaxPartitions),
	}
	if h != nil {
		// Shadow runs produce records too, marked shadow.
		opts = append(opts, policy.WithShadowRecorder(shadowRecorder(h)))
	}
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
