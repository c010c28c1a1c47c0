package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func (a *app) assignorsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "assignors",
		Short: "list the assignors the server can run",
		Long: `List the assignors the server can run, every runnable version, with the
rebalance protocols each supports (its default first). -o json prints the
ListAssignorsResponse, which also lists the protocol names the server's
policy answers for.`,
		Args: cobra.NoArgs,
		RunE: a.runConn(func(ctx context.Context, c *conn, _ []string) error {
			resp, err := c.assign.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{})
			if err != nil {
				return err
			}
			if a.json() {
				return printProtoJSON(a.out, resp, false)
			}
			tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tPROTOCOLS")
			for _, info := range resp.GetAssignors() {
				var ps []string
				for _, p := range info.GetProtocols() {
					ps = append(ps, protocolName(p))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\n", info.GetName(), info.GetVersion(), strings.Join(ps, ", "))
			}
			return tw.Flush()
		}),
	}
}

// protocolName is a rebalance protocol without the enum prefix.
func protocolName(p assigndv1.RebalanceProtocol) string {
	return strings.TrimPrefix(p.String(), "REBALANCE_PROTOCOL_")
}
