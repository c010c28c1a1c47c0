package server

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	l := newLimiter(1, 0)
	if err := l.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		maxWait time.Duration
		want    error
		within  time.Duration
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, 0, errOverloaded, 100 * time.Millisecond},
		{"max wait before deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Second)
		}, 50 * time.Millisecond, errOverloaded, 60 * time.Millisecond},
		{"max wait without deadline", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, 50 * time.Millisecond, errOverloaded, 60 * time.Millisecond},
		{"already past deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, 0, context.DeadlineExceeded, 0},
		{"canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, 0, context.Canceled, 40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l.maxWait = tt.maxWait
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			err := l.acquire(ctx)
			if !errors.Is(err, tt.want) {
				t.Fatalf("acquire = %v, want %v", err, tt.want)
			}
			// It gives up before the deadline, and not much before.
			if took := time.Since(start); took > tt.within+time.Second || took < tt.within*7/10 {
				t.Errorf("gave up after %s, want about %s", took, tt.within)
			}
		})
	}
	l.release()
	if err := l.acquire(context.Background()); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
