package rpcerr_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/doctable"
)

// reasonSamples is, for every ErrorReason, an error the services return
// with it. A new reason needs a sample here and a row in docs/api.md.
var reasonSamples = map[assigndv1.ErrorReason]error{
	assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP:                  fieldError(assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP),
	assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA:             fieldError(assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA),
	assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS:      fieldError(assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS),
	assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME:          rpcerr.UnknownProtocol(selection.ErrUnknownProtocol),
	assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL: fieldError(assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL),
	assigndv1.ErrorReason_ERROR_REASON_OVERLOADED:                     rpcerr.ErrOverloaded,
	assigndv1.ErrorReason_ERROR_REASON_INTERNAL:                       fmt.Errorf("a bug"),
	assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED:                 &rpcerr.LimitError{What: "partitions", Limit: 1, Got: 2},
	assigndv1.ErrorReason_ERROR_REASON_CALLER_NOT_ALLOWED:             fmt.Errorf("caller x: %w", selection.ErrCallerNotAllowed),
}

func fieldError(r assigndv1.ErrorReason) error {
	return &rpcerr.FieldError{Field: "members[0].metadata", Reason: r, Desc: "bad"}
}

// TestDocsErrorTable reads the table of docs/api.md's "Errors": every
// ErrorReason the API has is documented, every reason documented is one
// the API has, and the gRPC code beside it is the one [rpcerr.ToStatus]
// gives an error with that reason.
func TestDocsErrorTable(t *testing.T) {
	file := filepath.Join("..", "..", "docs", "api.md")
	rows, err := doctable.Table(file, "Errors")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[assigndv1.ErrorReason]bool{}
	for _, row := range rows {
		if len(row) < 3 {
			t.Fatalf("%s: a row of %d cells: %q", file, len(row), row)
		}
		reasons := doctable.Code(row[1])
		if len(reasons) == 0 {
			continue // a code no reason comes with (—)
		}
		for _, name := range reasons {
			v, ok := assigndv1.ErrorReason_value[name]
			if !ok {
				t.Errorf("%s documents %s, which is not an assigndv1.ErrorReason", file, name)
				continue
			}
			r := assigndv1.ErrorReason(v)
			documented[r] = true
			sample, ok := reasonSamples[r]
			if !ok {
				t.Errorf("no sample error for %s in reasonSamples", name)
				continue
			}
			st := rpcerr.ToStatus(sample)
			if got := rpcerr.ReasonOf(st); got != r {
				t.Errorf("the sample of %s maps to reason %s", name, got)
			}
			if code := status.Code(st).String(); !strings.EqualFold(strings.ReplaceAll(row[0], "_", ""), code) {
				t.Errorf("%s gives %s the code %s; ToStatus gives %s", file, name, row[0], code)
			}
		}
	}
	for v, name := range assigndv1.ErrorReason_name {
		r := assigndv1.ErrorReason(v)
		if r != assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED && !documented[r] {
			t.Errorf("assigndv1.ErrorReason has %s, which %s does not document", name, file)
		}
	}
}
