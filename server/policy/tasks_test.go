package policy_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign/task"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

// streamsPolicy has a rule per way of matching a streams group: by label
// and caller, by a rollout's bucket, and a consumer-only rule that
// streams groups pass by.
const streamsPolicy = `version: 1
rules:
  - name: consumers-only
    match: {group_types: [consumer], group_prefixes: [app-]}
    assignor: cooperative-sticky@1
  - name: payments-streams
    match: {group_types: [streams], group_prefixes: [payments-], callers: [{common_name: broker-eu}]}
    task_assignor: sticky@1
  - name: half
    match: {group_types: [streams], group_prefixes: [half-]}
    rollout: {percent: 50}
    task_assignor: sticky@1
  - name: both
    match: {groups: [shared]}
    assignor: cooperative-sticky@1
    task_assignor: standard
`

// TestSelectTasksByGroupTypeAndLabel: a streams group gets the task
// assignor of the first rule that applies to streams groups, by its
// label, caller and bucket; rules for consumer groups only, or with no
// task assignor, are passed by; the default rule runs sticky@1.
func TestSelectTasksByGroupTypeAndLabel(t *testing.T) {
	p := mustParse(t, streamsPolicy)
	rev := p.Revision()
	var in, out string // labels "half-N" in and out of the rollout's half
	for i := 0; in == "" || out == ""; i++ {
		label := "half-" + strconv.Itoa(i)
		if policy.Bucket("", label) < 5000 {
			in = label
		} else {
			out = label
		}
	}
	broker := selection.Caller{Subject: "CN=broker-eu", CommonName: "broker-eu"}
	for _, tt := range []struct {
		group  string
		caller selection.Caller
		rule   string
	}{
		{"app-orders", selection.Caller{}, "default"}, // consumers-only does not apply
		{"payments-ledger", broker, "payments-streams"},
		{"payments-ledger", selection.Caller{}, "default"}, // the caller clause
		{in, selection.Caller{}, "half"},
		{out, selection.Caller{}, "default"},
		{"shared", selection.Caller{}, "both"},
		{"", selection.Caller{}, "default"},
	} {
		sel, err := p.SelectTasks(selection.Query{GroupID: tt.group, Caller: tt.caller})
		if err != nil {
			t.Fatalf("%q: %v", tt.group, err)
		}
		if sel.Policy != tt.rule+"/"+rev || task.Ref(sel.Assignor) != "sticky@1" {
			t.Errorf("%q (caller %q): policy %s, assignor %s; want rule %s", tt.group, tt.caller.CommonName, sel.Policy, task.Ref(sel.Assignor), tt.rule)
		}
	}
	// The same file still serves consumer groups as before: the
	// streams-only rules do not apply to them.
	for group, rule := range map[string]string{"app-orders": "consumers-only", "payments-ledger": "default", "shared": "both"} {
		sel, err := p.Select(selection.Query{GroupID: group, ProtocolName: "range", Caller: broker})
		if err != nil || sel.Policy != rule+"/"+rev {
			t.Errorf("consumer group %q: policy %s, err %v; want rule %s", group, sel.Policy, err, rule)
		}
	}
}

// TestSelectTasksAppliesBindings: a binding covers a streams group's
// label as it covers a consumer group's id.
func TestSelectTasksAppliesBindings(t *testing.T) {
	p := mustParse(t, `version: 1
bindings:
  - name: payments
    group_prefixes: [payments-]
    callers: [{common_name: broker-eu}]
rules:
  - name: default
`)
	src := policytest.ServePolicy(t, p)
	_, err := src.SelectTasks(context.Background(), selection.Query{GroupID: "payments-ledger", Caller: selection.Caller{CommonName: "other"}})
	if !errors.Is(err, selection.ErrCallerNotAllowed) {
		t.Errorf("a caller the binding does not list: %v, want ErrCallerNotAllowed", err)
	}
	sel, err := src.SelectTasks(context.Background(), selection.Query{GroupID: "payments-ledger", Caller: selection.Caller{CommonName: "broker-eu"}})
	if err != nil || sel.Binding != "payments" || sel.Policy != "default/"+p.Revision() {
		t.Errorf("the bound caller: %+v, %v", sel, err)
	}
}

// TestParseRejectsTaskRules: what a rule says for streams groups is
// checked where it is written, each problem naming its field.
func TestParseRejectsTaskRules(t *testing.T) {
	for _, tt := range []struct {
		name, rule, want string
	}{
		{"unknown task assignor", "match: {group_types: [streams]}\n    task_assignor: balanced@1",
			`task_assignor: unknown task assignor "balanced@1"; task assignors: sticky@1`},
		{"no version", "match: {group_types: [streams]}\n    task_assignor: sticky",
			`task_assignor: "sticky" is not name@version`},
		{"streams without a task assignor", "match: {group_types: [streams]}",
			"task_assignor: the rule matches streams groups only (match.group_types) and needs a task assignor"},
		{"task assignor for consumer groups only", "match: {group_types: [consumer]}\n    assignor: range@1\n    task_assignor: sticky@1",
			`task_assignor: the rule's match.group_types leaves out "streams"`},
		{"partition assignor for streams only", "match: {group_types: [streams]}\n    assignor: range@1\n    task_assignor: sticky@1",
			"assignor: the rule matches streams groups only"},
		{"protocols for streams only", "match: {group_types: [streams], protocols: [range]}\n    task_assignor: sticky@1",
			"match.protocols: the rule matches streams groups only (match.group_types), which have no protocol name"},
		{"params for streams only", "match: {group_types: [streams]}\n    task_assignor: sticky@1\n    params: {freeze: true}",
			"params: params tune partition assignors"},
		{"shadow for streams only", "match: {group_types: [streams]}\n    task_assignor: sticky@1\n    shadow: {assignor: range@1}",
			"shadow: a shadow compares partition assignors"},
		{"unknown group type", "match: {group_types: [share]}\n    assignor: range@1",
			`match.group_types[0]: "share" is not a group type`},
		{"duplicate group type", "match: {group_types: [streams, streams]}\n    task_assignor: sticky@1",
			`match.group_types[1]: duplicate group type "streams"`},
		{"empty group types", "match: {group_types: []}\n    assignor: range@1",
			"match.group_types: an empty list would match nothing"},
		{"consumer groups need an assignor", "task_assignor: sticky@1", "assignor: a rule needs an assignor"},
		{"unreachable for streams", "task_assignor: sticky@1\n    assignor: cooperative-sticky@1\n  - name: later\n    match: {group_types: [streams]}\n    task_assignor: sticky@1",
			`rule "later": unreachable: rule "a" before it applies to every group`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Parse("test.yaml", []byte("version: 1\nrules:\n  - name: a\n    "+tt.rule+"\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v\nwant an error containing %q", err, tt.want)
			}
		})
	}
	_, err := policy.Parse("test.yaml", []byte("version: 1\nrules:\n  - name: default\n    task_assignor: sticky@1\n"))
	if err == nil || !strings.Contains(err.Error(), `the "default" rule runs the standard task assignor (sticky@1)`) {
		t.Errorf("the default rule with a task assignor of its own: %v", err)
	}
}

// TestStreamsRulesDoNotShadowConsumerRules: a catch-all rule for streams
// groups leaves later rules reachable for consumer groups, and the other
// way round.
func TestStreamsRulesDoNotShadowConsumerRules(t *testing.T) {
	mustParse(t, `version: 1
rules:
  - name: all-streams
    match: {group_types: [streams]}
    task_assignor: sticky@1
  - name: all-consumers
    assignor: cooperative-sticky@1
  - name: default
`)
}

// TestExplainTasks: ExplainPolicy for a streams group names the rule and
// task assignor the group gets, and why each earlier rule did not apply.
func TestExplainTasks(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: by-protocol
    match: {protocols: [range]}
    assignor: range@1
  - name: consumers-only
    match: {group_types: [consumer]}
    assignor: cooperative-sticky@1
  - name: no-task-assignor
    match: {groups: [payments-ledger]}
    assignor: cooperative-sticky@1
  - name: payments
    match: {group_types: [streams], group_prefixes: [payments-]}
    task_assignor: sticky@1
`)
	e, err := p.ExplainPolicy(context.Background(), selection.Query{GroupID: "payments-ledger", ProtocolName: "range", GroupType: selection.GroupStreams})
	if err != nil {
		t.Fatal(err)
	}
	if e.Rule != "payments" || e.Assignor != "sticky@1" || e.Policy != "payments/"+p.Revision() {
		t.Errorf("explanation %+v", e)
	}
	want := []string{"a streams group has no protocol name", "the group's type is not in match.group_types", "the rule names no task_assignor"}
	if len(e.Skipped) != len(want) {
		t.Fatalf("skipped %+v", e.Skipped)
	}
	for i, w := range want {
		if !strings.Contains(e.Skipped[i].Reason, w) {
			t.Errorf("skipped rule %s: %q, want %q", e.Skipped[i].Rule, e.Skipped[i].Reason, w)
		}
	}
}

// TestSelectTasksCountsSelections: the selection metric counts a streams
// group's choice by rule, revision, task assignor and group type.
func TestSelectTasksCountsSelections(t *testing.T) {
	m := newMeter(t)
	p := mustParse(t, streamsPolicy)
	src := policytest.ServePolicy(t, p, policy.WithMeterProvider(m.provider))
	for range 3 {
		if _, err := src.SelectTasks(context.Background(), selection.Query{GroupID: "shared"}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"rule": "both", "revision": p.Revision(), "assignor": "sticky@1", "group_type": "streams"}
	if n, ok := m.value(t, "assignd.policy.selections", want); !ok || n != 3 {
		t.Errorf("assignd.policy.selections%v = %d (found %t), want 3", want, n, ok)
	}
}
