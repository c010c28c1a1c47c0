package request_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/server/rpcerr"
)

// fuzzRequests runs plan on every request of type R that the fuzzer's
// bytes unmarshal to, starting from seeds.
func fuzzRequests[R any, P interface {
	*R
	proto.Message
}](f *testing.F, seeds []P, plan func(t *testing.T, req P)) {
	for _, s := range seeds {
		b, err := proto.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req := P(new(R))
		if proto.Unmarshal(b, req) != nil {
			return
		}
		plan(t, req)
	})
}

// decoded reports whether a decoder accepted its request (err is nil); a
// refusal must be a field or a limit error, the two the service maps to a
// status code.
func decoded(t *testing.T, err error) bool {
	t.Helper()
	var fe *rpcerr.FieldError
	var le *rpcerr.LimitError
	if err != nil && !errors.As(err, &fe) && !errors.As(err, &le) {
		t.Fatalf("decode error %T is neither a field nor a limit error: %v", err, err)
	}
	return err == nil
}

// checkPlanned checks an engine's run on a decoded request: a refusal
// (err) must map, through engineError, to a field error; a plan must pass
// check, the engine's invariant checker.
func checkPlanned(t *testing.T, err error, engineError func(error) error, check func() error) {
	t.Helper()
	if err != nil {
		var fe *rpcerr.FieldError
		if err := engineError(err); !errors.As(err, &fe) {
			t.Fatalf("engine error %T is not a field error: %v", err, err)
		}
		return
	}
	if err := check(); err != nil {
		t.Fatalf("plan breaks an invariant: %v", err)
	}
}
