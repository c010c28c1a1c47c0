package releasecheck

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// fakeHistory is a group's history on a fake clock: a decision shows from
// its time on, the latest keep of them, as GetGroup answers.
type fakeHistory struct {
	now  time.Time
	ds   []*assigndv1.Decision // oldest first
	keep int
	late map[int32]time.Duration // generation → how long after its time its record arrives
	err  func(poll int) error    // an error for this poll, or nil
	poll int
	// stop closes at poll stopAt (0: never), as a signal would.
	stop   chan struct{}
	stopAt int
}

func (h *fakeHistory) fetch(context.Context) (*assigndv1.GetGroupResponse, error) {
	h.poll++
	if h.poll == h.stopAt {
		close(h.stop)
	}
	if h.err != nil {
		if err := h.err(h.poll); err != nil {
			return nil, err
		}
	}
	var shown []*assigndv1.Decision
	for _, d := range h.ds {
		if !d.GetTime().AsTime().Add(h.late[d.GetGenerationId()]).After(h.now) {
			shown = append(shown, d)
		}
	}
	if len(shown) == 0 {
		return nil, status.Error(codes.NotFound, "group not found")
	}
	// As the store: a shadow run's record is not counted (a real
	// history answers it in shadow_decisions; here it is among the
	// decisions, for the check to leave out).
	recorded := int64(len(shown))
	for _, d := range shown {
		if d.GetShadow() {
			recorded--
		}
	}
	if h.keep > 0 && len(shown) > h.keep {
		shown = shown[len(shown)-h.keep:]
	}
	slices.Reverse(shown)
	sum := &assigndv1.GroupSummary{DecisionsRecorded: recorded, LongestUnowned: durationpb.New(1234 * time.Millisecond)}
	return &assigndv1.GetGroupResponse{Summary: sum, Decisions: shown}, nil
}

func (h *fakeHistory) window(d time.Duration) Window {
	return Window{Group: "checkout", For: d, Interval: time.Second, CallTimeout: time.Second,
		Now: func() time.Time { return h.now },
		Sleep: func(_ context.Context, d time.Duration) error {
			h.now = h.now.Add(d)
			return nil
		},
		Stop: h.stop}
}

func TestWatch(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       func(*Config)
		ds        []decision
		keep      int
		late      map[int32]time.Duration
		stopAt    int
		err       func(int) error
		window    time.Duration
		passed    bool
		fail      Check
		code      codes.Code // of the error Watch returns
		decisions int
		polls     int
	}{
		{name: "a rollout after the start passes at the end of the window",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 2500, withheld: []int32{1}}, {gen: 4, ms: 3200}},
			window: 10 * time.Second, passed: true, decisions: 2, polls: 11},
		{name: "a shadow run's record is not judged",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1400, proto: "range", eager: true, shadow: true}, {gen: 3, ms: 1500}},
			window: 3 * time.Second, passed: true, decisions: 1, polls: 4},
		{name: "an eager round fails at the next poll",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 2500, eager: true}},
			window: 10 * time.Second, fail: CheckEager, decisions: 1, polls: 4},
		{name: "rounds before the start are context, not judged",
			ds:     []decision{{gen: 2, ms: -5000, eager: true}, {gen: 3, ms: 1500}},
			window: 5 * time.Second, passed: true, decisions: 1, polls: 6},
		{name: "a group unknown at the start counts from its first decision",
			ds:     []decision{{gen: 1, ms: 1500}, {gen: 2, ms: 1600}},
			window: 5 * time.Second, passed: true, decisions: 2, polls: 6},
		{name: "a window ended early by a stop",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1500}},
			window: time.Hour, stopAt: 3, passed: true, decisions: 1, polls: 3},
		{name: "a window ended early still waits for an open chain",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1500, withheld: []int32{1}}, {gen: 4, ms: 4200}},
			window: time.Hour, stopAt: 3, passed: true, decisions: 2, polls: 6},
		{name: "a chain open at the end of the window is waited for",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 4500, withheld: []int32{1}}, {gen: 4, ms: 7200}},
			window: 5 * time.Second, passed: true, decisions: 2, polls: 9},
		{name: "a member away at the end of the window is waited for",
			cfg:    func(c *Config) { c.MinMembers = 3 },
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 4500, members: 2}, {gen: 4, ms: 9200}},
			window: 5 * time.Second, passed: true, decisions: 2, polls: 11},
		{name: "a member that does not come back fails past --idle",
			cfg:    func(c *Config) { c.MinMembers, c.Idle = 3, 10*time.Second },
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 4500, members: 2}},
			window: 5 * time.Second, fail: CheckIdle, decisions: 1, polls: 16},
		{name: "a chain that never completes fails past its bound",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 4500, withheld: []int32{1}}},
			window: 5 * time.Second, fail: CheckUnowned, decisions: 1, polls: 11},
		{name: "more rounds between two polls than the history keeps",
			ds:   []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1100}, {gen: 4, ms: 1200}, {gen: 5, ms: 1300}},
			keep: 2, window: 5 * time.Second, fail: CheckMissed, decisions: 2, polls: 3},
		{name: "a record that arrives after the next one's is not a gap",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1500}, {gen: 4, ms: 1600}},
			late:   map[int32]time.Duration{3: 2 * time.Second},
			window: 5 * time.Second, passed: true, decisions: 2, polls: 6},
		{name: "a gap no late record fills fails after the grace",
			ds:     []decision{{gen: 2, ms: -5000}, {gen: 4, ms: 1600}},
			window: 20 * time.Second, fail: CheckGap, decisions: 1, polls: 8},
		{name: "a server away for some polls is waited for",
			ds: []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 1500}},
			err: func(p int) error {
				if p == 2 || p == 3 {
					return status.Error(codes.Unavailable, "restarting")
				}
				return nil
			},
			window: 5 * time.Second, passed: true, decisions: 1, polls: 6},
		{name: "a baseline that comes late judges what came after the start",
			ds: []decision{{gen: 2, ms: -5000}, {gen: 3, ms: 500, eager: true}},
			err: func(p int) error {
				if p == 1 {
					return status.Error(codes.Unavailable, "starting")
				}
				return nil
			},
			window: 5 * time.Second, fail: CheckEager, decisions: 1, polls: 2},
		{name: "a server never reached ends with its error",
			err:    func(int) error { return status.Error(codes.Unavailable, "refused") },
			window: 3 * time.Second, code: codes.Unavailable, polls: 4},
		{name: "a refusal ends the watch at once",
			err:    func(int) error { return status.Error(codes.PermissionDenied, "not you") },
			window: 3 * time.Second, code: codes.PermissionDenied, polls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHistory{now: t0, ds: decisions(tc.ds...), keep: tc.keep, late: tc.late, err: tc.err, stop: make(chan struct{}), stopAt: tc.stopAt}
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			rep, err := Watch(context.Background(), cfg, h.window(tc.window), h.fetch)
			if status.Code(err) != tc.code {
				t.Fatalf("error %v, want code %s", err, tc.code)
			}
			if rep.StoppedEarly != (tc.stopAt > 0) {
				t.Errorf("stopped early %t, want %t", rep.StoppedEarly, tc.stopAt > 0)
			}
			if rep.Passed != tc.passed || rep.Decisions != tc.decisions || rep.Polls != tc.polls {
				t.Errorf("passed %t, %d decisions, %d polls; want %t, %d, %d: %+v", rep.Passed, rep.Decisions, rep.Polls,
					tc.passed, tc.decisions, tc.polls, rep.Failures)
			}
			if tc.code == codes.OK && time.Duration(rep.HistoryLongestUnowned) != 1234*time.Millisecond && tc.decisions > 0 {
				t.Errorf("the history's longest unowned %s, want the summary's 1.234s", rep.HistoryLongestUnowned)
			}
			if tc.fail != "" && (len(rep.Failures) == 0 || rep.Failures[0].Check != tc.fail) {
				t.Errorf("failures %+v, want %s first", rep.Failures, tc.fail)
			}
		})
	}
}
