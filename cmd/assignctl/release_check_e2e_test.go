package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/testbed/contains"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/shimtest"
)

// checkLab is a lab on kfake (or $ASSIGND_BROKER) whose assignd keeps a
// group history, and the group's name on the broker.
func checkLab(t *testing.T, name string) (*grouplab.Lab, string, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test against a Kafka broker")
	}
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	lab, err := grouplab.New([]grouplab.Topic{{Name: "orders", Partitions: 24}, {Name: "audit", Partitions: 6}},
		grouplab.WithGroup(name), grouplab.WithLogger(shimtest.Quiet), grouplab.WithAssigndOptions(server.WithHistory(h)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lab.Close)
	if err := lab.StartProducing(); err != nil {
		t.Fatal(err)
	}
	return lab, lab.Broker().Group(name), ctx
}

// checkRun is an `assignctl release-check` running in the background.
type checkRun struct {
	done     chan int
	out, err bytes.Buffer
}

func startCheck(ctx context.Context, args ...string) *checkRun {
	g := &checkRun{done: make(chan int, 1)}
	go func() { g.done <- run(ctx, args, strings.NewReader(""), &g.out, &g.err) }()
	return g
}

func (g *checkRun) wait(t *testing.T, ctx context.Context) (int, checkReport) {
	t.Helper()
	select {
	case code := <-g.done:
		var rep checkReport
		if err := json.Unmarshal(g.out.Bytes(), &rep); err != nil {
			t.Fatalf("release-check: exit %d, report not JSON (%v): %s %s", code, err, g.out.String(), g.err.String())
		}
		return code, rep
	case <-ctx.Done():
		t.Fatal("the check did not end")
		return 0, checkReport{}
	}
}

// checkReport is the part of the JSON report the tests read.
type checkReport struct {
	Passed   bool
	Failures []struct {
		Check, Reason string
	}
	Decisions      int
	StoppedEarly   bool `json:"stopped_early"`
	Protocols      []string
	FollowupChains int    `json:"followup_chains"`
	LongestUnowned string `json:"longest_unowned"`
	Members        int
}

func settleLab(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	t.Helper()
	if err := lab.Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

func startMember(t *testing.T, ctx context.Context, lab *grouplab.Lab, name string, opts ...grouplab.MemberOption) *grouplab.Member {
	t.Helper()
	m, err := lab.StartMember(name, grouplab.Shim, opts...)
	if err != nil {
		t.Fatal(err)
	}
	settleLab(t, ctx, lab)
	return m
}

// TestReleaseCheckRollingRestart: a rolling restart of shim members, every
// member leaving and its next incarnation joining, passes the check: the
// group stays cooperative, every follow-up completes, no partition waits
// long, assignd leads every round.
func TestReleaseCheckRollingRestart(t *testing.T) {
	lab, group, ctx := checkLab(t, "release-check-pass")
	members := []*grouplab.Member{startMember(t, ctx, lab, "m0"), startMember(t, ctx, lab, "m1"), startMember(t, ctx, lab, "m2")}

	const window = 90 * time.Second
	g := startCheck(ctx, "--addr", lab.AssigndAddr(), "-o", "json", "release-check", group, "--expect", "cooperative-sticky",
		"--max-unowned", "5s", "--followup-within", "10s", "--idle", "20s", "--interval", "100ms", "--for", window.String(), "--min-members", "3")
	began := time.Now()
	for _, m := range members {
		if err := m.Leave(ctx); err != nil {
			t.Fatal(err)
		}
		settleLab(t, ctx, lab)
		startMember(t, ctx, lab, m.Name()+"'")
	}
	took := time.Since(began)
	t.Logf("the rolling restart took %s", took.Round(time.Millisecond))
	if took > window-2*time.Second {
		t.Fatalf("the rolling restart took %s, too close to the check's window of %s to prove anything", took, window)
	}
	// The rollout is done: end the window, as a pipeline does with kill.
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Skipf("cannot signal the check here: %v", err)
	}
	code, rep := g.wait(t, ctx)
	if !rep.StoppedEarly {
		t.Errorf("the check ran its whole window after the signal")
	}
	t.Logf("release-check: exit %d after a rolling restart: %d decisions, %d follow-up chains, longest unowned %s, %d members\n%s",
		code, rep.Decisions, rep.FollowupChains, rep.LongestUnowned, rep.Members, g.err.String())
	if code != exitOK || !rep.Passed || len(rep.Failures) != 0 {
		t.Fatalf("the check failed a rolling restart: exit %d, %+v", code, rep.Failures)
	}
	// Three leaves and three joins: at least one round each, and every
	// join that took partitions away needed a follow-up.
	if rep.Decisions < 6 || rep.FollowupChains == 0 || rep.Members != 3 {
		t.Errorf("the check saw %d decisions, %d follow-up chains, %d members; want at least 6, 1, and 3", rep.Decisions, rep.FollowupChains, rep.Members)
	}
	if len(rep.Protocols) != 1 || rep.Protocols[0] != "cooperative-sticky/COOPERATIVE" {
		t.Errorf("protocols %v, want cooperative-sticky/COOPERATIVE alone", rep.Protocols)
	}
	// The check times a partition from decision to decision; the members
	// saw it from their revoke callback to its new owner's assign
	// callback. The owner revokes once it has processed its batch and
	// committed, after the decision that asked it to, so the check's figure
	// is an upper bound: above the members' (but for callback jitter) and
	// not far above.
	checkSaw, err := time.ParseDuration(rep.LongestUnowned)
	if err != nil {
		t.Fatal(err)
	}
	membersSaw := cooperativeUnowned(lab.Timeline().Events())
	t.Logf("longest unowned: the check %s, the members' callbacks %s", checkSaw, membersSaw)
	if membersSaw <= 0 || checkSaw < membersSaw-250*time.Millisecond || checkSaw > membersSaw+2*time.Second {
		t.Errorf("the check's longest unowned %s is not an upper bound close to what the members saw, %s", checkSaw, membersSaw)
	}
}

// cooperativeUnowned is the longest a partition went from a member that
// stays revoking it (a cooperative revocation, not a leave) to its next
// owner's assign callback.
func cooperativeUnowned(events []grouplab.Event) time.Duration {
	leaving := map[string]bool{}
	revokedAt := map[grouplab.TP]time.Duration{}
	var longest time.Duration
	for _, e := range events {
		switch e.Kind {
		case grouplab.EventLeaving, grouplab.EventKilled:
			leaving[e.Member] = true
		case grouplab.EventRevoked:
			if leaving[e.Member] {
				continue
			}
			for _, p := range e.Partitions {
				revokedAt[p] = e.At
			}
		case grouplab.EventAssigned:
			for _, p := range e.Partitions {
				if at, ok := revokedAt[p]; ok {
					longest = max(longest, e.At-at)
					delete(revokedAt, p)
				}
			}
		}
	}
	return longest
}

// TestReleaseCheckEagerMember: members in the middle of a KIP-429 upgrade offer
// cooperative-sticky and sticky; one member released with sticky alone
// downgrades the whole group to eager, and the check fails on it, naming
// the protocol.
func TestReleaseCheckEagerMember(t *testing.T) {
	lab, group, ctx := checkLab(t, "release-check-eager")
	both := grouplab.WithProtocols("cooperative-sticky", "sticky")
	startMember(t, ctx, lab, "m0", both)
	startMember(t, ctx, lab, "m1", both)

	g := startCheck(ctx, "--addr", lab.AssigndAddr(), "-o", "json", "release-check", group, "--expect", "cooperative-sticky",
		"--max-unowned", "5s", "--idle", "20s", "--interval", "100ms", "--for", "40s")
	startMember(t, ctx, lab, "m2", grouplab.WithProtocols("sticky"))
	code, rep := g.wait(t, ctx)
	t.Logf("release-check: exit %d: %+v", code, rep.Failures)
	if code != exitCheckFailed || rep.Passed {
		t.Fatalf("the check passed a group downgraded to eager: exit %d, %+v", code, rep)
	}
	checks := map[string]string{}
	for _, f := range rep.Failures {
		checks[f.Check] = f.Reason
	}
	if !strings.Contains(checks["protocol"], `negotiated "sticky"`) || !strings.Contains(checks["eager"], "EAGER") {
		t.Errorf("failures %+v; want protocol (negotiated \"sticky\") and eager", rep.Failures)
	}
}

// TestReleaseCheckSummary: a range group calling during the window fails a check
// that expects cooperative-sticky, with exit 4 and the human summary; the
// same check told to expect range and accept eager passes it.
func TestReleaseCheckSummary(t *testing.T) {
	addr := startHistoryServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	assign := func() {
		t.Helper()
		// The check's first poll is its baseline: what the server
		// remembers then is not judged. It polls at once; a second is
		// ample even on a loaded machine.
		time.Sleep(time.Second)
		if code, _, errOut := ctl(t, "", "--addr", addr, "assign", "-f", "../../examples/range-racks.json"); code != exitOK {
			t.Fatalf("assign: exit %d: %s", code, errOut)
		}
	}
	wait := func(g *checkRun) int {
		t.Helper()
		select {
		case code := <-g.done:
			return code
		case <-ctx.Done():
			t.Fatal("the check did not end")
			return 0
		}
	}
	g := startCheck(ctx, "--addr", addr, "release-check", "billing", "--for", "20s", "--interval", "20ms")
	assign()
	code := wait(g)
	out := g.out.String()
	if code != exitCheckFailed || g.err.Len() != 0 {
		t.Fatalf("release-check: exit %d, stderr %q; want 4 and nothing on stderr:\n%s", code, g.err.String(), out)
	}
	contains.All(t, "summary", out, "release check FAILED for group billing", `FAIL protocol: generation 1 negotiated "range", want "cooperative-sticky"`,
		"FAIL eager: generation 1 ran an EAGER rebalance", "protocols range/EAGER", "decisions:        1 (generations 1 to 1)",
	)

	g = startCheck(ctx, "--addr", addr, "release-check", "billing", "--for", "3s", "--interval", "20ms", "--expect", "range", "--allow-eager")
	assign()
	if code := wait(g); code != exitOK || !strings.Contains(g.out.String(), "release check PASSED for group billing") {
		t.Errorf("an expected eager group: exit %d, %q %q", code, g.out.String(), g.err.String())
	}
}

func TestReleaseCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"release-check"},
		{"release-check", "g", "--for", "0s"},
		{"release-check", "g", "--interval", "1ms"},
		{"release-check", "g", "--max-unowned", "-1s"},
		{"release-check", "g", "--min-members", "-1"},
	} {
		if code, _, errOut := ctl(t, "", append([]string{"--addr", "127.0.0.1:1"}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errOut)
		}
	}
}
