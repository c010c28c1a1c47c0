package main

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func TestPrintStatus(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *timestamppb.Timestamp { return timestamppb.New(now.Add(d)) }
	tests := []struct {
		name string
		resp *assigndv1.RolloutStatusResponse
		want []string
	}{
		{"none", &assigndv1.RolloutStatusResponse{Revision: "abc"}, []string{"policy revision abc has no staged rollouts"}},
		{"running with a pending switch", &assigndv1.RolloutStatusResponse{Revision: "abc", Rules: []*assigndv1.RolloutRuleState{{
			Rule: "canary", Step: 1, Steps: 4, Percent: 10, StartedAt: at(-2 * time.Hour), Since: at(-time.Hour), Agreed: true,
			PendingAt: at(3 * time.Second), PendingStep: 2, NextEvaluation: at(30 * time.Second), LastEvaluation: "gate holds on 7 trusted groups",
		}}}, []string{"rule canary", "step         2 of 4, 10% (running)", "since        2026-01-02T02:00:00Z (1h0m0s ago)",
			"pending      step 3 from 2026-01-02T03:00:03Z (in 3s)", "next check", "last check   gate holds on 7 trusted groups"}},
		{"halted", &assigndv1.RolloutStatusResponse{Revision: "abc", Rules: []*assigndv1.RolloutRuleState{{
			Rule: "canary", Step: 0, Steps: 2, Percent: 1, StartedAt: at(-time.Hour), Since: at(-time.Minute), Halted: true, Agreed: true,
			Reason:   "gate failed: max_moved_ratio failed on 1 group (orders-2)",
			Failures: []*assigndv1.RolloutFailure{{GroupId: "orders-2", Measure: "max_moved_ratio", Value: 0.9, Limit: 0.25, Baseline: 0.1}},
			Warnings: []string{"the policy has no bindings"},
		}}}, []string{"step         1 of 2, 1% (HALTED)", "reason       gate failed: max_moved_ratio failed on 1 group (orders-2)",
			"failing      orders-2 max_moved_ratio = 0.9 > 0.25 (baseline 0.1)", "warning      the policy has no bindings"}},
		{"not agreed", &assigndv1.RolloutStatusResponse{Revision: "abc", Rules: []*assigndv1.RolloutRuleState{{Rule: "canary", Steps: 3, Percent: 0.5}}},
			[]string{"step         1 of 3, 0.5% (running)", "not yet agreed", "has not read its own record back"}},
		{"complete", &assigndv1.RolloutStatusResponse{Revision: "abc", Rules: []*assigndv1.RolloutRuleState{{
			Rule: "canary", Step: 3, Steps: 3, Percent: 100, StartedAt: at(-time.Hour), Since: at(-time.Minute), Agreed: true}}},
			[]string{"step         3 of 3, 100% (complete)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sb strings.Builder
			printStatus(&sb, tt.resp, now)
			for _, w := range tt.want {
				if !strings.Contains(sb.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, sb.String())
				}
			}
		})
	}
}
