package saramaassign_test

import (
	"testing"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// leader is the sarama strategy in shimtest's shared leader tests: a
// sticky strategy planning stickyGroup.
type leader struct{}

func (leader) Lead(t *testing.T, c *client.Client, o shimtest.LeaderOptions) (shimtest.Balance, error) {
	var rep saramaassign.Report
	opts := append(shimtest.Options(o, saramaassign.WithLogger, saramaassign.WithMeterProvider, saramaassign.WithTimeout),
		saramaassign.WithObserver(func(r saramaassign.Report) { rep = r }))
	s := saramaassign.Sticky(c, opts...)
	members, topics := stickyGroup()
	if m, ok := members[o.Broken]; ok {
		m.Topics = append([]string{""}, m.Topics...)
		members[o.Broken] = m
	}
	plan, err := s.Plan(members, topics)
	return shimtest.Balance{Out: plan, Stats: s.Stats(), Report: rep.BalanceReport}, err
}
