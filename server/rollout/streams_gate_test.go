package rollout_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/rollout"
)

// TestGateReadsStreamsDecisions: a gate on a rule for streams groups
// measures a streams decision's moved ratio as active tasks moved over
// tasks (standby moves interrupt no processing), and its imbalance as
// the spread of active tasks.
func TestGateReadsStreamsDecisions(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: canary
    match: {group_types: [streams], group_prefixes: [kip1071:]}
    task_assignor: sticky@1
    rollout:
      steps: [{percent: 10, hold: 1m}, {percent: 100}]
      gate: {min_groups: 1, max_moved_ratio: 0.25, max_imbalance: 1}
`)
	gate := p.StagedRules()[0].Gate
	started := newClock().Now()
	step := rollout.Step{Index: 0, Started: started, Since: started}
	for _, tt := range []struct {
		name                          string
		tasks, active, standby, imbal int32
		failed                        string
	}{
		{"few actives moved, many standbys", 40, 8, 30, 1, ""},
		{"many actives moved", 40, 12, 0, 1, rollout.MeasureMovedRatio},
		{"actives unbalanced", 40, 0, 0, 2, rollout.MeasureImbalance},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &assigndv1.Decision{Time: timestamppb.New(started.Add(time.Second)), GroupId: "kip1071:wordcount",
				GroupType: assigndv1.GroupType_GROUP_TYPE_STREAMS, PolicyRule: "canary", PolicyRevision: p.Revision(),
				RolloutStep: 1, RolloutStarted: timestamppb.New(started),
				Tasks: tt.tasks, ActiveMoved: tt.active, StandbyMoved: tt.standby, Imbalance: tt.imbal}
			v := rollout.Evaluate(p, "canary", gate, step, []history.RuleGroup{{ID: d.GroupId, Decisions: []*assigndv1.Decision{d}}})
			if v.Groups != 1 {
				t.Fatalf("the streams decision was not counted: %s", v.Summary(gate.MinGroups))
			}
			var got string
			for _, f := range v.Failures {
				got = f.GetMeasure()
			}
			if got != tt.failed || len(v.Failures) > 1 {
				t.Errorf("failures %v, want %q", v.Failures, tt.failed)
			}
		})
	}
}
