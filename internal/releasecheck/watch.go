package releasecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Fetch reads the group's history: a GetGroup call with all decisions
// kept.
type Fetch func(ctx context.Context) (*assigndv1.GetGroupResponse, error)

// Window says how long and how often [Watch] looks.
type Window struct {
	// Group is the consumer group, for the report.
	Group string
	// For is how long the rollout is watched.
	For time.Duration
	// Interval is the time between polls; each poll is bounded by
	// CallTimeout.
	Interval, CallTimeout time.Duration
	// Now and Sleep are the clock; nil means the real one.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	// Stop, when closed, ends the window early (the rollout is done): the
	// gate judges what it saw, waits for what is open, and returns. Nil:
	// the window lasts For.
	Stop <-chan struct{}
}

// Report is a finished gate: the verdict and what it rests on.
type Report struct {
	Group  string    `json:"group"`
	Passed bool      `json:"passed"`
	Expect string    `json:"expect,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Polls  int       `json:"polls"`
	// PollErrors counts polls that found no server (retried); a check
	// whose every poll failed ends with that error instead.
	PollErrors int `json:"poll_errors,omitempty"`
	// StoppedEarly: Window.Stop ended the window before For.
	StoppedEarly bool `json:"stopped_early,omitempty"`
	Result
	// HistoryLongestUnowned is the history's own longest unowned span
	// (GroupSummary.longest_unowned) at the last poll: over the decisions
	// it keeps, from before the start too, from a round that withheld
	// partitions to the next generation. The checks use the check's own
	// figure (Result.LongestUnowned): since the start, per partition.
	HistoryLongestUnowned Duration `json:"history_longest_unowned,omitempty"`
	// Bounds are the configuration the verdict used.
	Bounds Bounds `json:"bounds"`
}

// Bounds is a Config as a report shows it.
type Bounds struct {
	MaxUnowned     Duration `json:"max_unowned"`
	FollowupWithin Duration `json:"followup_within"`
	Idle           Duration `json:"idle"`
	MinMembers     int      `json:"min_members,omitempty"`
	AllowEager     bool     `json:"allow_eager,omitempty"`
}

// Watch polls fetch every w.Interval for w.For and evaluates cfg on the
// decisions made since it started. It returns as soon as a check fails;
// at the end of the window (For, or w.Stop) it waits for what is still
// open (a follow-up chain, an unowned partition, a fresh generation gap,
// a missing member) until it resolves or its bound passes. A poll that
// finds no server is retried; any other error ends the watch.
func Watch(ctx context.Context, cfg Config, w Window, fetch Fetch) (Report, error) {
	now, sleep := w.Now, w.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d, w.Stop) }
	}
	start := now()
	end := start.Add(w.For)
	// Past the window, open items resolve or fail within their bounds;
	// hard stops the wait whatever the clocks say.
	wait := max(cfg.FollowupWithin, cfg.MaxUnowned, GapGrace)
	if cfg.MinMembers > 0 {
		wait = max(wait, cfg.Idle)
	}
	hard := end.Add(wait + 2*w.Interval)
	stopped := false
	rep := Report{Group: w.Group, Expect: cfg.Expect, Start: start, Bounds: Bounds{MaxUnowned: Duration(cfg.MaxUnowned),
		FollowupWithin: Duration(cfg.FollowupWithin), Idle: Duration(cfg.Idle), MinMembers: cfg.MinMembers, AllowEager: cfg.AllowEager}}

	var (
		obs       = Observation{Start: start}
		seen      = map[string]bool{}
		baseline  = true // the first successful poll sets what came before
		recorded0 int64  // decisions recorded before the start
		lastErr   error
	)
	for {
		resp, err := poll(ctx, fetch, w.CallTimeout)
		rep.Polls++
		switch {
		case err == nil:
			lastErr = nil
			rep.HistoryLongestUnowned = Duration(resp.GetSummary().GetLongestUnowned().AsDuration())
			// Newest first; a shadow run's record was never served.
			ds := slices.DeleteFunc(slices.Clone(resp.GetDecisions()), (*assigndv1.Decision).GetShadow)
			if baseline {
				baseline = false
				recorded0 = resp.GetSummary().GetDecisionsRecorded()
				// When the first polls found no server, the baseline
				// comes late: what it holds from after the start (by
				// the server's clock) is judged.
				late := rep.Polls > 1
				for _, d := range ds {
					if late && d.GetTime().AsTime().After(start) {
						recorded0--
						continue
					}
					seen[key(d)] = true
					if obs.Before == nil {
						obs.Before = d
					}
				}
				if !late {
					break
				}
			}
			for _, d := range slices.Backward(ds) {
				if k := key(d); !seen[k] {
					seen[k] = true
					obs.Decisions = append(obs.Decisions, d)
				}
			}
			slices.SortStableFunc(obs.Decisions, func(a, b *assigndv1.Decision) int {
				return a.GetTime().AsTime().Compare(b.GetTime().AsTime())
			})
			obs.Missed = max(0, resp.GetSummary().GetDecisionsRecorded()-recorded0-int64(len(obs.Decisions)))
		case status.Code(err) == codes.NotFound:
			// The group has not called yet (or this replica forgot it).
			lastErr = nil
			baseline = false
		case unreachable(err):
			rep.PollErrors++
			lastErr = err
		default:
			return rep, err
		}

		t := now()
		if !stopped && closed(w.Stop) && t.Before(end) {
			stopped, end, hard = true, t, t.Add(wait+2*w.Interval)
			rep.StoppedEarly = true
		}
		obs.Now, obs.Ended = t, !t.Before(end)
		rep.Result, rep.End = Evaluate(cfg, obs), t
		reached := rep.PollErrors < rep.Polls
		switch {
		case !reached && obs.Ended:
			// Nothing was seen: that says nothing of the group.
			return rep, lastErr
		case !reached:
		case !rep.Result.Passed():
			return rep, nil
		case obs.Ended && (!rep.Pending || !t.Before(hard)):
			if rep.Pending {
				rep.Failures = append(rep.Failures, Failure{Check: CheckOpen, Reason: fmt.Sprintf(
					"a follow-up chain, an unowned partition, a generation gap or a missing member was still open %s after the window ended", t.Sub(end).Round(time.Second))})
			}
			rep.Passed = rep.Result.Passed()
			return rep, nil
		}
		pause := w.Interval
		if !obs.Ended {
			pause = max(min(pause, end.Sub(t)), time.Millisecond)
		}
		if err := sleep(ctx, pause); err != nil {
			return rep, err
		}
	}
}

func poll(ctx context.Context, fetch Fetch, timeout time.Duration) (*assigndv1.GetGroupResponse, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return fetch(ctx)
}

// unreachable: the poll found no server, or no answer in time; a restart
// of assignd during the rollout is no reason to stop watching.
func unreachable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// key identifies a decision across polls.
func key(d *assigndv1.Decision) string {
	t := d.GetTime()
	return fmt.Sprintf("%x|%s|%d", d.GetInputDigest(), t.AsTime().Format(time.RFC3339Nano), d.GetGenerationId())
}

// sleepCtx sleeps for d, until ctx is done (an error) or stop closes.
func sleepCtx(ctx context.Context, d time.Duration, stop <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	if closed(stop) {
		stop = nil // already stopped: sleep the interval out
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	case <-stop:
	}
	return nil
}

// closed reports whether c is closed; a nil c never is.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
