package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func assignorsCommand() *command {
	return &command{
		name: "assignors", summary: "list the assignors the server can run",
		run: func(ctx context.Context, inv *invocation) error {
			out := inv.out
			resp, err := inv.conn.assign.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{})
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tPROTOCOLS")
			for _, a := range resp.GetAssignors() {
				var ps []string
				for _, p := range a.GetProtocols() {
					ps = append(ps, protocolName(p))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\n", a.GetName(), a.GetVersion(), strings.Join(ps, ", "))
			}
			return tw.Flush()
		},
	}
}

// protocolName is a rebalance protocol without the enum prefix.
func protocolName(p assigndv1.RebalanceProtocol) string {
	return strings.TrimPrefix(p.String(), "REBALANCE_PROTOCOL_")
}
