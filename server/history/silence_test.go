package history

import (
	"testing"
	"time"
)

func TestSilentGroups(t *testing.T) {
	const h = time.Hour
	// burst is a rolling restart of three members at at: six calls over
	// four minutes, one episode.
	burst := func(at time.Duration) []time.Duration {
		var out []time.Duration
		for i := range 6 {
			out = append(out, at+time.Duration(i)*45*time.Second)
		}
		return out
	}
	concat := func(parts ...[]time.Duration) []time.Duration {
		var out []time.Duration
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		calls []time.Duration // after t0
		now   time.Duration   // after t0
		want  bool
	}{
		{"never called twice", []time.Duration{0}, 30 * 24 * h, false},
		{"one rolling restart, then stable for a month", burst(0), 30 * 24 * h, false},
		{"two episodes are not a rhythm yet", concat(burst(0), burst(h)), 30 * 24 * h, false},
		{"hourly job, calling", []time.Duration{0, h, 2 * h, 3 * h}, 3*h + 50*time.Minute, false},
		{"hourly job, quiet for 2h59m", []time.Duration{0, h, 2 * h, 3 * h}, 5*h + 59*time.Minute, false},
		{"hourly job, quiet for 3h01m", []time.Duration{0, h, 2 * h, 3 * h}, 6*h + time.Minute, true},
		{"deployments every 1 to 3 days, quiet for 8 days", concat(burst(0), burst(24*h), burst(96*h)), 96*h + 8*24*h, false},
		{"deployments every 1 to 3 days, quiet for 10 days", concat(burst(0), burst(24*h), burst(96*h)), 96*h + 10*24*h, true},
		{"every 11 minutes, quiet for 59: the floor of an hour", []time.Duration{0, 11 * time.Minute, 22 * time.Minute, 33 * time.Minute}, 33*time.Minute + 59*time.Minute, false},
		{"every 11 minutes, quiet for over an hour", []time.Duration{0, 11 * time.Minute, 22 * time.Minute, 33 * time.Minute}, 33*time.Minute + 61*time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := t0.Add(tc.now)
			s, err := New(WithClock(func() time.Time { return now }))
			if err != nil {
				t.Fatal(err)
			}
			for i, at := range tc.calls {
				s.Record(decision("g", call{at: at, gen: int32(i + 1), members: []string{"a"}}))
			}
			// A second group that calls often and just did keeps the count honest.
			for i := range 4 {
				s.Record(decision("busy", call{at: tc.now - time.Duration(3-i)*11*time.Minute, gen: int32(i + 1), members: []string{"a"}}))
			}
			want := 0
			if tc.want {
				want = 1
			}
			if got := s.SilentGroups(); got != want {
				t.Errorf("SilentGroups() = %d, want %d", got, want)
			}
		})
	}
}
