package grouplab

import (
	"context"
	"testing"
	"time"
)

// Budget skips t under -short, saying why (an end-to-end test runs a
// broker and real consumers), and otherwise returns a context that ends
// after d, the time the test may take, or when t ends.
func Budget(t testing.TB, why string, d time.Duration) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
