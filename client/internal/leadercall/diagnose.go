package leadercall

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Diagnosis says why a leader fell back and whether that points at a
// setting rather than at a passing outage.
type Diagnosis struct {
	// Reason is the metric label, see [Reason].
	Reason string
	// Check names the setting to check when the fallback means
	// "misconfigured": it will fall back the same way on every rebalance
	// until someone changes that setting. "" for outages, slowness and
	// overload, which pass.
	Check string
}

// Misconfigured reports whether the fallback will recur until a setting
// changes.
func (d Diagnosis) Misconfigured() bool { return d.Check != "" }

// Level is ERROR for a misconfiguration, which nobody notices in a
// stream of warnings while every rebalance silently runs in-process, and
// WARN otherwise.
func (d Diagnosis) Level() slog.Level {
	if d.Misconfigured() {
		return slog.LevelError
	}
	return slog.LevelWarn
}

// Diagnose classifies the error of a call to assignd (nil for a leader
// without a client).
func Diagnose(err error) Diagnosis {
	if err == nil {
		return Diagnosis{Reason: ReasonNoClient}
	}
	return Diagnosis{Reason: Reason(err), Check: check(err)}
}

// check names the setting behind err, or "" when err is not a
// misconfiguration. The order matters: the client's own limit is told
// apart from the server's before the message is read.
func check(err error) string {
	if errors.Is(err, client.ErrResponseTooLarge) {
		return "the response is over the client's receive limit: raise client.WithMaxResponseBytes"
	}
	if errors.Is(err, ErrInvalidResponse) {
		return ""
	}
	st := status.Convert(err)
	msg := st.Message()
	switch st.Code() {
	case codes.ResourceExhausted:
		switch {
		case strings.Contains(msg, "received message larger than max"):
			return "the request is over assignd's limit: raise assignd --max-recv-bytes"
		case strings.Contains(msg, "trying to send message larger than max"):
			return "the request is over the client's send limit: raise grpc.MaxCallSendMsgSize in client.WithDialOptions"
		case errorReason(st) == assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED:
			return "the group is over a limit of assignd (the error names it): raise assignd --max-partitions"
		}
	case codes.Unavailable:
		switch {
		case containsAny(msg, "authentication handshake failed", "tls:", "x509:"):
			return "the TLS handshake failed: check client.WithTLS (CA, client certificate, server name) against assignd --tls-cert and --tls-client-ca"
		case strings.Contains(msg, "error reading server preface: EOF"):
			// What a plaintext client gets from a TLS server, or from
			// a port that does not speak gRPC.
			return "the server closed the connection before speaking gRPC: check client.WithTLS (assignd serves TLS?) and that the target is assignd's gRPC port"
		case containsAny(msg, "no children to pick from", "name resolver error", "produced zero addresses", "no such host"):
			// round_robin over zero resolved addresses says "no
			// children to pick from".
			return "the target resolves to no address: check the target given to client.New and its DNS name"
		}
	case codes.Unimplemented:
		return "the target does not serve assignd.v1.AssignmentService: check the target given to client.New (host and port)"
	case codes.Unauthenticated, codes.PermissionDenied:
		return "assignd refused the caller: check client.WithTLS's client certificate against assignd --tls-client-ca and the policy's callers"
	case codes.InvalidArgument:
		switch errorReason(st) {
		case assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME, assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL:
			return "assignd's policy does not run this protocol name as the group does: check assignd --policy"
		}
		return "assignd rejected a request the in-process engine accepts: check that assignd and this client are of matching versions, and assignd --policy"
	}
	return ""
}

// errorReason is the reason of the status' google.rpc.ErrorInfo, if any.
func errorReason(st *status.Status) assigndv1.ErrorReason {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return assigndv1.ErrorReason(assigndv1.ErrorReason_value[info.GetReason()])
		}
	}
	return assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// LogFallback logs one fallback of adapter ("kgoassign" or
// "saramaassign"): at ERROR naming the setting to check when d is a
// misconfiguration, at WARN otherwise. attrs describe the group; err is
// assignd's error (nil without a client).
func LogFallback(l *slog.Logger, adapter string, d Diagnosis, err error, attrs ...any) {
	msg := adapter + ": assignd did not answer usefully; assigned in-process"
	if d.Misconfigured() {
		msg = adapter + ": assignd is unusable as configured; assigned in-process, as every rebalance will be until the setting in check is fixed"
		attrs = append(attrs, "check", d.Check)
	}
	attrs = append(attrs, "reason", d.Reason)
	if err != nil {
		attrs = append(attrs, "error", err)
	}
	l.Log(context.Background(), d.Level(), msg, attrs...)
}
