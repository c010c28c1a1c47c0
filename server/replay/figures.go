package replay

import (
	"slices"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// firstFigures are the figures of a rebalance's first round: what the
// group's next rebalance does.
func firstFigures(res *assign.Result) *assigndv1.RebalanceFigures {
	return &assigndv1.RebalanceFigures{
		Partitions:       int32(res.Stats.Partitions + res.Stats.Pending),
		Moved:            int32(res.Stats.Moved),
		Withheld:         int32(res.Stats.Pending),
		FollowupRequired: res.FollowupRequired,
		Imbalance:        int32(res.Stats.Imbalance),
	}
}

// settledFigures adds to fig the worst per-topic skew and the partitions
// off their rack of the settled plan res on group g. Skew is counted
// among a topic's subscribers; a partition is off its rack when its
// member has a rack, the partition's replica racks are known and none is
// the member's.
func settledFigures(fig *assigndv1.RebalanceFigures, g *assign.Group, res *assign.Result) {
	rack := make(map[string]string, len(g.Members))
	for _, m := range g.Members {
		rack[m.ID] = m.Rack
	}
	racks := make(map[string][][]string, len(g.Topics))
	for _, t := range g.Topics {
		racks[t.Name] = t.Racks
	}
	for _, m := range res.Members {
		for _, tp := range m.Assigned {
			r, pr := rack[m.ID], racks[tp.Topic]
			if r == "" || pr == nil {
				continue
			}
			for _, p := range tp.Partitions {
				if int(p) < len(pr) && len(pr[p]) > 0 && !slices.Contains(pr[p], r) {
					fig.OffRack++
				}
			}
		}
	}
	fig.WorstTopicSkew, fig.WorstTopic = assign.WorstTopicSkew(g, res)
}
