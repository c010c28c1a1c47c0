package runner

import (
	"errors"
	"testing"

	"github.com/assignd/assignd/assign"
)

func TestCheckMembers(t *testing.T) {
	id := func(s *string) string { return *s }
	tests := []struct {
		ids    []string
		limit  int
		member string // "" with field: the error names no member
		field  string // "": no error
	}{
		{[]string{"a", "b"}, 2, "", ""},
		{[]string{"a", "b", "c"}, 2, "", "members"},
		{[]string{"a", ""}, 2, "", "members[1].member_id"},
		{[]string{"b", "a", "b"}, 3, "b", "member_id"},
	}
	for _, tt := range tests {
		err := CheckMembers(tt.ids, tt.limit, id)
		var ie *assign.InputError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%v (limit %d): %v, want none", tt.ids, tt.limit, err)
		case tt.field == "":
		case !errors.As(err, &ie) || !errors.Is(err, assign.ErrInvalidGroup):
			t.Errorf("%v (limit %d): %v, want an *InputError wrapping ErrInvalidGroup", tt.ids, tt.limit, err)
		case ie.Member != tt.member || ie.Field != tt.field:
			t.Errorf("%v (limit %d): member %q field %q, want %q %q", tt.ids, tt.limit, ie.Member, ie.Field, tt.member, tt.field)
		}
	}
}
