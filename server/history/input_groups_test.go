package history_test

import (
	"slices"
	"testing"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
)

func TestInputGroups(t *testing.T) {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	h.RecordInput(&assigndv1.Decision{GroupId: "with-input", GenerationId: 1}, []byte{0x0a, 0x01, 'x'})
	h.Record(&assigndv1.Decision{GroupId: "without", GenerationId: 1})
	if got := h.InputGroups(); !slices.Equal(got, []string{"with-input"}) {
		t.Errorf("InputGroups() = %v, want [with-input]", got)
	}
}
