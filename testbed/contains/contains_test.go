package contains_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assignd/assignd/testbed/contains"
)

// recorder keeps what All reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// All reports each missing piece once, naming the text and showing it,
// and nothing when every piece is there.
func TestAll(t *testing.T) {
	r := &recorder{TB: t}
	contains.All(r, "the output", "a b c", "a", "c")
	if len(r.errors) != 0 {
		t.Fatalf("every piece is there, yet: %q", r.errors)
	}
	contains.All(r, "the output", "a b c", "a", "x", "y")
	if len(r.errors) != 2 || !strings.HasPrefix(r.errors[0], `the output lacks "x":`) || !strings.HasSuffix(r.errors[1], "\na b c") {
		t.Fatalf("errors %q, want one for x and one for y, each with the text", r.errors)
	}
}
