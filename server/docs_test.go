package server_test

import (
	"path/filepath"
	"testing"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/doctable"
)

// TestDocsMoveReasonTable reads the table of docs/api.md's "Why
// partitions move": every MoveReason of the API is documented, once, with
// the name logs and metrics give it ([assign.MoveReason]'s String, whose
// value the API's enum shares), and nothing else is.
func TestDocsMoveReasonTable(t *testing.T) {
	file := filepath.Join("..", "docs", "api.md")
	rows, err := doctable.Table(file, "Why partitions move")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[assigndv1.MoveReason]bool{}
	for _, row := range rows {
		names, short := doctable.Code(row[0]), doctable.Code(row[1])
		if len(names) != 1 || len(short) != 1 {
			t.Errorf("%s: a row without one `MOVE_REASON_*` and one `name`: %q", file, row)
			continue
		}
		v, ok := assigndv1.MoveReason_value[names[0]]
		if !ok {
			t.Errorf("%s documents %s, which is not an assigndv1.MoveReason", file, names[0])
			continue
		}
		if documented[assigndv1.MoveReason(v)] {
			t.Errorf("%s documents %s twice", file, names[0])
		}
		documented[assigndv1.MoveReason(v)] = true
		if got := assign.MoveReason(v).String(); got != short[0] {
			t.Errorf("%s names %s %q in logs and metrics; the engine names it %q", file, names[0], short[0], got)
		}
	}
	for v, name := range assigndv1.MoveReason_name {
		if v != 0 && !documented[assigndv1.MoveReason(v)] {
			t.Errorf("assigndv1.MoveReason has %s, which %s does not document", name, file)
		}
	}
}
