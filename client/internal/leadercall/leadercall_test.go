package leadercall

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestMemberCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		assigned []string
		want     string // "" for a complete, valid response
	}{
		{"every member once", []string{"b", "a", "c"}, ""},
		{"unknown member", []string{"a", "x"}, `unknown member "x"`},
		{"member twice", []string{"a", "b", "a"}, `member "a" twice`},
		{"member missing", []string{"c", "a"}, `member "b" is missing`},
		{"nobody", nil, `member "a" is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewMemberCheck([]string{"a", "b", "c"})
			var err error
			for _, id := range tc.assigned {
				if err = c.Assigned(id); err != nil {
					break
				}
			}
			if err == nil {
				err = c.Complete()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidResponse)):
				t.Fatalf("error %v, want an ErrInvalidResponse saying %q", err, tc.want)
			}
		})
	}
}

func TestReason(t *testing.T) {
	for err, want := range map[error]string{
		status.Error(codes.Unavailable, "down"):                     "Unavailable",
		status.Error(codes.DeadlineExceeded, "slow"):                "DeadlineExceeded",
		fmt.Errorf("wrapped: %w", ErrInvalidResponse):               ReasonInvalidResponse,
		fmt.Errorf("calling: %w", status.Error(codes.Internal, "")): "Internal",
	} {
		if got := Reason(err); got != want {
			t.Errorf("Reason(%v) = %q, want %q", err, got, want)
		}
	}
}
