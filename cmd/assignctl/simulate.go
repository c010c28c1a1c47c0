package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func (a *app) simulateCommand() *cobra.Command {
	var assignor string
	var params []string
	cmd := &cobra.Command{
		Use:   "simulate GROUP --assignor NAME[@VERSION] [--param K=V ...]",
		Short: "replay a group's recorded inputs under another assignor",
		Long: `Replay the group's recorded inputs (the history keeps the latest few of each
group), oldest first, under another assignor (SimulateGroup), and compare with
what ran. The recorded assignor is run again on each input: the engine is
deterministic, so it reproduces the decision, with its per-topic skew and
partitions off their rack. The other assignor runs on the same inputs, each
round's owned partitions replaced by what it gave in the round before (the
recorded owned partitions are what the real assignor produced). --param takes
the policy file's parameters: rack_aware (default true),
max_moves_per_rebalance, freeze, keep_misaligned_racks. -o json prints the SimulateGroupResponse.`,
		Args: exactArgs(1),
		RunE: a.runE(func(ctx context.Context, args []string) error {
			if assignor == "" {
				return usageError{fmt.Errorf("--assignor is required, e.g. --assignor kip848-uniform@1")}
			}
			kv := make(map[string]string, len(params))
			for _, p := range params {
				k, v, ok := strings.Cut(p, "=")
				if !ok || k == "" {
					return usageError{fmt.Errorf("--param %q: want KEY=VALUE", p)}
				}
				kv[k] = v
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			resp, err := c.replay.SimulateGroup(ctx, &assigndv1.SimulateGroupRequest{GroupId: args[0], Assignor: assignor, Params: kv})
			if err != nil {
				return err
			}
			if a.json() {
				return printProtoJSON(a.out, resp, false)
			}
			return printSimulation(a, resp)
		}),
	}
	cmd.Flags().StringVar(&assignor, "assignor", "", "the assignor to replay under, `NAME[@VERSION]`")
	cmd.Flags().StringArrayVar(&params, "param", nil, "an assignor parameter, `K=V` (rack_aware, max_moves_per_rebalance, freeze, keep_misaligned_racks); repeatable")
	return cmd
}

func printSimulation(a *app, r *assigndv1.SimulateGroupResponse) error {
	w := a.out
	p := r.GetParams()
	fmt.Fprintf(w, "group %s: %d recorded rebalances replayed under %s (rack_aware=%t max_moves_per_rebalance=%d freeze=%t)\n",
		r.GetGroupId(), len(r.GetRounds()), r.GetAssignor(), p.GetRackAware(), p.GetMaxMovesPerRebalance(), p.GetFreeze())
	fmt.Fprintf(w, "actual -> simulated: moved %d -> %d, rebalances needing a follow-up %d -> %d, final worst topic skew %d -> %d\n\n",
		r.GetActualMoved(), r.GetSimulatedMoved(), r.GetActualFollowups(), r.GetSimulatedFollowups(), r.GetActualFinalSkew(), r.GetSimulatedFinalSkew())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERATION\tRECORDED AT\tACTUAL ASSIGNOR\tMOVED\tWITHHELD\tFOLLOW-UP\tIMBALANCE\tTOPIC SKEW\tOFF RACK")
	for _, rd := range r.GetRounds() {
		x, s := rd.GetActual(), rd.GetSimulated()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", rd.GetGenerationId(), rd.GetInputTime().AsTime().UTC().Format("2006-01-02T15:04:05Z"),
			orDash(rd.GetActualAssignor()), arrowN(x.GetMoved(), s.GetMoved()), arrowN(x.GetWithheld(), s.GetWithheld()),
			arrow(yesNo(x.GetFollowupRequired()), yesNo(s.GetFollowupRequired())), arrowN(x.GetImbalance(), s.GetImbalance()),
			arrowN(x.GetWorstTopicSkew(), s.GetWorstTopicSkew()), arrowN(x.GetOffRack(), s.GetOffRack()))
	}
	return tw.Flush()
}
