package rollout

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
)

// ts converts a time for a record; the zero time is absent.
func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}
