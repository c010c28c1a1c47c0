package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/assignd/assignd/internal/releasecheck"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// releaseCheckFlags are `assignctl release-check`'s flags; see its help for the defaults.
type releaseCheckFlags struct {
	expect     string
	allowEager bool
	maxUnowned time.Duration
	followup   time.Duration
	idle       time.Duration
	window     time.Duration
	interval   time.Duration
	minMembers int
}

func (a *app) releaseCheckCommand() *cobra.Command {
	var f releaseCheckFlags
	cmd := &cobra.Command{
		Use:   "release-check GROUP",
		Short: "watch a group's rebalances during a release; exit 4 if it regressed",
		Long: `Watch the decisions assignd makes for a consumer group while a new version of
the consumer rolls out, and fail the release if the group regressed. It polls
the group's history every --interval for --for and fails as soon as:

  protocol        a round negotiated a protocol other than --expect
  eager           a round ran EAGER (every member revoked everything);
                  --allow-eager accepts it
  followup        a round withheld partitions and no round completed the
                  follow-up chain within --followup-within
  unowned         a partition stayed unowned longer than --max-unowned, from
                  the round that revoked it to the round that hands it out
  idle            no decision within --idle of the start (or in the window),
                  or of a round with fewer than --min-members members (the
                  member a rollout took down did not come back)
  generation-gap  a generation was formed without assignd (the leader fell
                  back to its own assignor)
  missed          the history dropped decisions before the check saw them
  members         fewer than --min-members members at the end (with --idle 0)

At the end of the window it waits for an open follow-up chain, an unowned
partition or a missing member to resolve, within its bound. SIGTERM or
SIGINT ends the window early, when the rollout is done: the check judges what
it saw and exits as below; a second signal aborts it.

Start it before the rollout: rounds from before the start count only as the
context they leave open. Without --history-brokers the history is each
replica's own (docs/observatory.md): point --addr at the replica the group
calls; with shared history any replica answers.

Exit status: 0 the check passed; 4 a check failed (the report says which);
1, 2, 3 as for every command. -o json prints the report as JSON.`,
		Example: `  assignctl release-check checkout --expect cooperative-sticky --max-unowned 5s --for 10m`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.started = true
			if err := f.validate(); err != nil {
				return usageError{err}
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			cfg := releasecheck.Config{Expect: f.expect, AllowEager: f.allowEager, MaxUnowned: f.maxUnowned,
				FollowupWithin: f.followup, Idle: f.idle, MinMembers: f.minMembers}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			w := releasecheck.Window{Group: args[0], For: f.window, Interval: f.interval, CallTimeout: a.conn.timeout, Stop: stopOnSignal(ctx, cancel)}
			group := args[0]
			rep, err := releasecheck.Watch(ctx, cfg, w, func(ctx context.Context) (*assigndv1.GetGroupResponse, error) {
				return c.history.GetGroup(ctx, &assigndv1.GetGroupRequest{GroupId: group})
			})
			if err != nil {
				return err
			}
			if a.json() {
				enc := json.NewEncoder(a.out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := releasecheck.WriteSummary(a.out, rep); err != nil {
				return err
			}
			if !rep.Passed {
				return errCheckFailed
			}
			return nil
		},
	}
	d := releasecheck.DefaultConfig()
	fl := cmd.Flags()
	fl.StringVar(&f.expect, "expect", d.Expect, "the protocol `name` every round must negotiate; empty: any")
	fl.BoolVar(&f.allowEager, "allow-eager", false, "accept EAGER rounds (for groups that are eager on purpose)")
	fl.DurationVar(&f.maxUnowned, "max-unowned", d.MaxUnowned, "longest a partition may stay unowned; 0: no check")
	fl.DurationVar(&f.followup, "followup-within", d.FollowupWithin, "longest a follow-up chain may take; 0: no check")
	fl.DurationVar(&f.idle, "idle", d.Idle, "fail if the group makes no decision within this long of the start, or of a round with fewer than --min-members; 0: no check")
	fl.DurationVar(&f.window, "for", 10*time.Minute, "how long to watch")
	fl.DurationVar(&f.interval, "interval", time.Second, "time between polls of the group's history")
	fl.IntVar(&f.minMembers, "min-members", 0, "members the group is expected to have: a round with fewer must be followed within --idle, and the group must end with as many; 0: no check")
	return cmd
}

// stopOnSignal returns a channel closed at the first SIGINT or SIGTERM,
// which ends the check's window early (the pipeline's rollout is done);
// the second signal cancels the watch.
func stopOnSignal(ctx context.Context, cancel context.CancelFunc) <-chan struct{} {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stop := make(chan struct{})
	go func() {
		defer signal.Stop(sigs)
		for first := true; ; first = false {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
			}
			if !first {
				cancel()
				return
			}
			close(stop)
		}
	}()
	return stop
}

func (f releaseCheckFlags) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--max-unowned", f.maxUnowned}, {"--followup-within", f.followup}, {"--idle", f.idle}} {
		if d.v < 0 {
			return fmt.Errorf("%s %s: must not be negative", d.name, d.v)
		}
	}
	switch {
	case f.window <= 0:
		return fmt.Errorf("--for %s: must be positive", f.window)
	case f.interval < 10*time.Millisecond || f.interval > time.Minute:
		return fmt.Errorf("--interval %s: want 10ms to 1m", f.interval)
	case f.minMembers < 0:
		return fmt.Errorf("--min-members %d: must not be negative", f.minMembers)
	}
	return nil
}
