package saramaassign

import (
	"time"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/internal/leadercall"
)

// Plan computes the group's assignment when this member leads: sarama
// passes every member's decoded subscription and the partition ids of
// every subscribed topic. The plan comes from assignd when it answers
// within the timeout with a plan that fits the group, and from the same
// engine in-process otherwise; either way every member of the group is in
// it, with an empty map when it gets nothing, so that sarama sends each
// one the sticky user data of its (empty) assignment.
//
// Plan returns an error only when neither assignd nor the engine can plan
// the input (for example a subscription naming the empty topic) or a
// topic's partition ids are far too sparse (see the package doc); sarama
// then fails the rebalance and Consume returns the error.
func (s *Strategy) Plan(members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32) (sarama.BalanceStrategyPlan, error) {
	start := time.Now()
	rep := Report{BalanceReport: client.BalanceReport{Group: s.cfg.group, Protocol: s.name, Members: len(members)}}
	defer func() {
		rep.Took = time.Since(start)
		s.lead.Done(s.name, rep.Source, rep.Reason, rep.Took)
		if s.cfg.observer != nil {
			s.cfg.observer(rep)
		}
	}()

	in, err := newInput(members, topics)
	if err != nil {
		return nil, s.fail(&rep, start, err)
	}
	rep.Partitions = in.partitions

	var callErr error
	if s.client != nil {
		out, err := s.remote(in)
		if err == nil {
			rep.Source, rep.Plan, rep.Warnings = client.SourceService, in.plan(out.members), append(in.warnings, out.warnings...)
			s.lead.Logger.Debug("saramaassign: planned by assignd", s.attrs(&rep, start)...)
			return rep.Plan, nil
		}
		callErr = err
	}
	diag := leadercall.Diagnose(callErr)
	rep.Reason, rep.Check, rep.Err = diag.Reason, diag.Check, callErr

	out, err := s.local(in)
	if err != nil {
		return nil, s.fail(&rep, start, err)
	}
	rep.Source, rep.Plan, rep.Warnings = client.SourceFallback, in.plan(out.members), append(in.warnings, out.warnings...)
	leadercall.LogFallback(s.lead.Logger, "saramaassign", diag, callErr, s.attrs(&rep, start)...)
	return rep.Plan, nil
}

// fail records a plan that could not be computed: the input is unusable,
// or neither assignd nor the engine could plan it.
func (s *Strategy) fail(rep *Report, start time.Time, err error) error {
	rep.Source, rep.Err = client.SourceNone, err
	s.lead.Logger.Error("saramaassign: planning failed; sarama fails the rebalance",
		append(s.attrs(rep, start), "error", err)...)
	return err
}

func (s *Strategy) attrs(r *Report, start time.Time) []any {
	attrs := []any{
		"group", r.Group, "protocol", s.name, "members", r.Members, "partitions", r.Partitions,
		"took", time.Since(start),
	}
	if len(r.Warnings) > 0 {
		attrs = append(attrs, "warnings", r.Warnings)
	}
	return attrs
}
