package shimtest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/metrictest"
)

// Fataler is what a test helper needs of *testing.T and *rapid.T alike.
type Fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Leader is an adapter under the leader tests every adapter shares.
type Leader interface {
	// Lead builds the adapter's leader on c (nil: no client) configured
	// with o, runs one balance of the adapter's test group as its leader
	// and returns what the leader handed the Kafka client, in a form
	// reflect.DeepEqual compares.
	Lead(t *testing.T, c *client.Client, o LeaderOptions) (Balance, error)
}

// LeaderOptions is what a shared test configures a leader with.
type LeaderOptions struct {
	Logger *slog.Logger
	Meters metric.MeterProvider
	// Timeout bounds the call to assignd; 0 keeps the adapter's default.
	Timeout time.Duration
	// Broken names a member of the group whose subscription names the
	// empty topic too, which assignd and the engine both reject; "" for
	// none.
	Broken string
}

// Options are o as an adapter's options, given its constructors.
func Options[O any](o LeaderOptions, logger func(*slog.Logger) O, meters func(metric.MeterProvider) O, timeout func(time.Duration) O) []O {
	opts := []O{logger(o.Logger)}
	if o.Meters != nil {
		opts = append(opts, meters(o.Meters))
	}
	if o.Timeout > 0 {
		opts = append(opts, timeout(o.Timeout))
	}
	return opts
}

// Balance is one balance a leader ran.
type Balance struct {
	// Out is what the leader handed the Kafka client.
	Out    any
	Stats  client.BalanceStats
	Report client.BalanceReport
}

// FallbackCase is one way assignd can fail a leader, which the leader
// must survive by planning in-process.
type FallbackCase struct {
	Name string
	// Client is the assignd client the leader gets; nil for none.
	Client func(t *testing.T) *client.Client
	// Slow: assignd hangs, so the leader runs with a short timeout.
	Slow   bool
	Reason string
	// Check is a word the logged check names when the fallback means a
	// setting is wrong (logged at ERROR), "" otherwise (WARN).
	Check string
}

// Misfit is the FallbackCase of an answer that does not fit the group:
// a proxy of the assignd real changes each answer with fn before the
// leader sees it, and the leader must refuse it as InvalidResponse.
func Misfit(real *client.Client, name string, fn func(r *assigndv1.AssignResponse)) FallbackCase {
	return FallbackCase{Name: name, Reason: "InvalidResponse", Client: func(t *testing.T) *client.Client {
		return NewClient(t, ServeFake(t, &Proxy{Next: real, Rewrite: func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
			fn(r)
			return r, nil
		}}))
	}}
}

// fallbackCases are the failures every adapter meets the same way: no
// client, no server, a hung one, an error; then own, the answers that do
// not fit the adapter's group; then the settings a fallback names.
func fallbackCases(real *client.Client, own []FallbackCase) []FallbackCase {
	cases := []FallbackCase{
		{"no client", func(*testing.T) *client.Client { return nil }, false, "NoClient", ""},
		{"nothing listening", func(t *testing.T) *client.Client { return NewClient(t, ClosedAddr(t)) }, false, "Unavailable", ""},
		{"slow", func(t *testing.T) *client.Client { return NewClient(t, ServeFake(t, &Proxy{Block: true})) }, true, "DeadlineExceeded", ""},
		{"error", func(t *testing.T) *client.Client {
			return NewClient(t, ServeFake(t, &Proxy{Next: real, Rewrite: func(*assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				return nil, status.Error(codes.ResourceExhausted, "busy")
			}}))
		}, false, "ResourceExhausted", ""},
	}
	return append(append(cases, own...), []FallbackCase{
		{"response over the client's limit", func(t *testing.T) *client.Client {
			return NewClient(t, ServeAssignd(t), client.WithMaxResponseBytes(64))
		}, false, "ResourceExhausted", "WithMaxResponseBytes"},
		{"request over the server's limit", func(t *testing.T) *client.Client {
			return NewClient(t, ServeAssignd(t, server.WithMaxRecvBytes(64)))
		}, false, "ResourceExhausted", "--max-recv-bytes"},
		{"group over the server's limit", func(t *testing.T) *client.Client {
			return NewClient(t, ServeAssignd(t, server.WithMaxPartitions(4)))
		}, false, "ResourceExhausted", "--max-partitions"},
		{"TLS to a plaintext server", func(t *testing.T) *client.Client {
			return NewClient(t, ServeAssignd(t), client.WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}))
		}, false, "Unavailable", "WithTLS"},
		{"target resolves to nothing", func(t *testing.T) *client.Client {
			r := manual.NewBuilderWithScheme("nowhere")
			r.InitialState(resolver.State{})
			return NewClient(t, "nowhere:///assignd", client.WithDialOptions(grpc.WithResolvers(r)))
		}, false, "Unavailable", "client.New"},
		{"not assignd", func(t *testing.T) *client.Client {
			return NewClient(t, ServeFake(t, assigndv1.UnimplementedAssignmentServiceServer{}))
		}, false, "Unimplemented", "client.New"},
	}...)
}

// CheckFallbacks runs l's leader against every failure of assignd, the
// shared ones and own (real is a real assignd's client), and checks that
// each time it hands the Kafka client what the engine plans in-process,
// within 3 s, counted as one fallback for the right reason in its stats,
// its report, its log line and the assignd.client.fallbacks counter.
func CheckFallbacks(t *testing.T, l Leader, real *client.Client, own ...FallbackCase) {
	t.Helper()
	want, err := l.Lead(t, nil, LeaderOptions{Logger: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range fallbackCases(real, own) {
		t.Run(tc.Name, func(t *testing.T) {
			reader := sdkmetric.NewManualReader()
			var logs bytes.Buffer
			o := LeaderOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Meters: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))}
			if tc.Slow {
				o.Timeout = 100 * time.Millisecond
			}
			start := time.Now()
			got, err := l.Lead(t, tc.Client(t), o)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("the balance took %s", took)
			}
			if got.Stats != (client.BalanceStats{Fallbacks: 1}) {
				t.Errorf("stats %+v, want one fallback", got.Stats)
			}
			rep := got.Report
			if rep.Source != client.SourceFallback || rep.Reason != tc.Reason {
				t.Errorf("report source %v reason %q (%v), want fallback %q", rep.Source, rep.Reason, rep.Err, tc.Reason)
			}
			CheckFallbackLog(t, logs.String(), rep.Check, tc.Check)
			if n := FallbackCount(t, reader, tc.Reason); n != 1 {
				t.Errorf("assignd.client.fallbacks{reason=%q} = %d, want 1", tc.Reason, n)
			}
			if !reflect.DeepEqual(got.Out, want.Out) {
				t.Errorf("leader handed %v, want the in-process %v", got.Out, want.Out)
			}
		})
	}
}

// HungAssignd is a client to an assignd that never answers, for
// [CheckBoundedFallback].
func HungAssignd(t *testing.T) *client.Client {
	return NewClient(t, ServeFake(t, &Proxy{Block: true}))
}

// BoundedCallTimeout is the call timeout of a leader under [CheckBoundedFallback].
const BoundedCallTimeout = 100 * time.Millisecond

// CheckBoundedFallback checks a leader's balance of ScaleOutGroup(1000)
// on [HungAssignd], with [BoundedCallTimeout] and a fallback bound far too
// short for the group: one fallback, after the call's deadline, and the
// leader blocked at most 3 s (the call, then one linear placement of
// 1,000,000 partitions, well under a second, and the encoding; the rest
// is room for a loaded machine). The adapter's test checks the plan.
func CheckBoundedFallback(t *testing.T, stats client.BalanceStats, rep client.BalanceReport) {
	t.Helper()
	if stats != (client.BalanceStats{Fallbacks: 1}) || rep.Reason != "DeadlineExceeded" {
		t.Fatalf("stats %+v, reason %q, want one fallback after the timeout", stats, rep.Reason)
	}
	if rep.Took > 3*time.Second {
		t.Fatalf("the leader was blocked %s", rep.Took)
	}
}

// CheckFailure checks that when neither assignd nor the engine can plan
// l's group (member m3 subscribes to the empty topic), the leader fails
// the balance with an error naming m3, counted and reported as a
// failure: the Kafka client then fails the rebalance.
func CheckFailure(t *testing.T, l Leader) {
	t.Helper()
	got, err := l.Lead(t, NewClient(t, ServeAssignd(t)), LeaderOptions{Logger: Quiet, Broken: "m3"})
	if err == nil {
		t.Fatal("the balance succeeded")
	}
	var ie *assign.InputError
	if !errors.As(err, &ie) || ie.Member != "m3" {
		t.Fatalf("error %v does not name member m3", err)
	}
	if got.Stats != (client.BalanceStats{Failures: 1}) {
		t.Fatalf("stats %+v, want one failure", got.Stats)
	}
	if rep := got.Report; rep.Source != client.SourceNone || rep.Reason != "InvalidArgument" {
		t.Fatalf("report %+v", rep)
	}
}

// FallbackCount reads the assignd.client.fallbacks counter for reason.
func FallbackCount(t *testing.T, r *sdkmetric.ManualReader, reason string) int64 {
	t.Helper()
	return metrictest.Sums(t, r, "assignd.client.fallbacks", "reason")[reason]
}
