package leadercall

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// withReason is a status error carrying assignd's ErrorInfo.
func withReason(c codes.Code, r assigndv1.ErrorReason, msg string) error {
	st, err := status.New(c, msg).WithDetails(&errdetails.ErrorInfo{Reason: r.String(), Domain: "assignd.dev"})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

// The messages are grpc-go's and assignd's own, as a leader sees them.
func TestDiagnose(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		reason string
		check  string // a word the check must name; "" for a passing cause
	}{
		{"no client", nil, ReasonNoClient, ""},
		{"unreachable", status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`), "Unavailable", ""},
		{"slow", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), "DeadlineExceeded", ""},
		{"overloaded", withReason(codes.ResourceExhausted, assigndv1.ErrorReason_ERROR_REASON_OVERLOADED, "too many concurrent Assign calls; retry with backoff"), "ResourceExhausted", ""},
		{"internal", withReason(codes.Internal, assigndv1.ErrorReason_ERROR_REASON_INTERNAL, "internal error"), "Internal", ""},
		{"invalid response", fmt.Errorf("kgoassign: %w: member \"a\" is missing", ErrInvalidResponse), ReasonInvalidResponse, ""},

		{"response over the client's limit", fmt.Errorf("calling assignd: %w", fmt.Errorf("%w: %w", client.ErrResponseTooLarge,
			status.Error(codes.ResourceExhausted, "grpc: received message larger than max (19000000 vs. 4194304)"))), "ResourceExhausted", "client.WithMaxResponseBytes"},
		{"request over the server's limit", status.Error(codes.ResourceExhausted, "grpc: received message larger than max (300000000 vs. 268435456)"), "ResourceExhausted", "--max-recv-bytes"},
		{"request over the client's send limit", status.Error(codes.ResourceExhausted, "trying to send message larger than max (5000 vs. 4096)"), "ResourceExhausted", "MaxCallSendMsgSize"},
		{"group over a server limit", withReason(codes.ResourceExhausted, assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED, "partitions: 20000000 exceeds the server's limit of 10000000"), "ResourceExhausted", "--max-partitions"},
		{"TLS to a plaintext server", status.Error(codes.Unavailable, `connection error: desc = "transport: authentication handshake failed: tls: first record does not look like a TLS handshake"`), "Unavailable", "client.WithTLS"},
		{"unknown CA", status.Error(codes.Unavailable, `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`), "Unavailable", "client.WithTLS"},
		{"no client certificate", status.Error(codes.Unavailable, `connection error: desc = "error reading server preface: remote error: tls: certificate required"`), "Unavailable", "--tls-client-ca"},
		{"plaintext to a TLS server", status.Error(codes.Unavailable, `connection error: desc = "error reading server preface: EOF"`), "Unavailable", "client.WithTLS"},
		{"unresolvable target", status.Error(codes.Unavailable, "no children to pick from"), "Unavailable", "client.New"},
		{"resolver error", status.Error(codes.Unavailable, `name resolver error: produced zero addresses`), "Unavailable", "client.New"},
		{"unknown host", status.Error(codes.Unavailable, "max retries exhausted: failed after 3 attempts: rpc error: code = Unavailable desc = lookup assignd.example on 10.0.0.2:53: no such host"), "Unavailable", "client.New"},
		{"not assignd", status.Error(codes.Unimplemented, "unknown service assignd.v1.AssignmentService"), "Unimplemented", "client.New"},
		{"unauthenticated", status.Error(codes.Unauthenticated, "no credentials"), "Unauthenticated", "client.WithTLS"},
		{"permission denied", status.Error(codes.PermissionDenied, "not allowed"), "PermissionDenied", "client.WithTLS"},
		{"unknown protocol name", withReason(codes.InvalidArgument, assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME, "protocol_name: unknown"), "InvalidArgument", "--policy"},
		{"unsupported protocol", withReason(codes.InvalidArgument, assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL, "rebalance_protocol: unsupported"), "InvalidArgument", "--policy"},
		{"request the engine accepts", withReason(codes.InvalidArgument, assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA, "members[0].metadata: truncated"), "InvalidArgument", "versions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Diagnose(tc.err)
			if d.Reason != tc.reason {
				t.Errorf("reason %q, want %q", d.Reason, tc.reason)
			}
			switch {
			case tc.check == "" && d.Misconfigured():
				t.Errorf("diagnosed as misconfigured (%q), want a passing cause", d.Check)
			case tc.check != "" && !strings.Contains(d.Check, tc.check):
				t.Errorf("check %q, want it to name %s", d.Check, tc.check)
			}
			want := slog.LevelWarn
			if tc.check != "" {
				want = slog.LevelError
			}
			if d.Level() != want {
				t.Errorf("level %v, want %v", d.Level(), want)
			}
		})
	}
}

func TestLogFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"passing", status.Error(codes.Unavailable, "connection refused"),
			[]string{"level=WARN", "kgoassign: assignd did not answer usefully", "reason=Unavailable", "group=g", "connection refused"}},
		{"misconfigured", status.Error(codes.Unimplemented, "unknown service"),
			[]string{"level=ERROR", "kgoassign: assignd is unusable as configured", "reason=Unimplemented", "group=g", "check=", "client.New"}},
		{"no client", nil, []string{"level=WARN", "reason=NoClient"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			LogFallback(slog.New(slog.NewTextHandler(&buf, nil)), "kgoassign", Diagnose(tc.err), tc.err, "group", "g")
			line := buf.String()
			if strings.Count(line, "\n") != 1 {
				t.Fatalf("want one line, got %q", line)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q does not say %q", line, w)
				}
			}
			if tc.err == nil && strings.Contains(line, "error=") {
				t.Errorf("%q logs an error without one", line)
			}
		})
	}
}

// The client marks its own limit; an error it did not mark is the
// server's, whatever its numbers.
func TestDiagnoseTellsTheLimitsApart(t *testing.T) {
	server := status.Error(codes.ResourceExhausted, "grpc: received message larger than max (5000000 vs. 4194304)")
	if d := Diagnose(server); strings.Contains(d.Check, "WithMaxResponseBytes") {
		t.Fatalf("the server's limit diagnosed as the client's: %q", d.Check)
	}
	if d := Diagnose(fmt.Errorf("%w: %w", client.ErrResponseTooLarge, server)); !strings.Contains(d.Check, "WithMaxResponseBytes") {
		t.Fatalf("the client's limit diagnosed as %q", d.Check)
	}
}
