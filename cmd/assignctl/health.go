package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// errNotServing: the server answered the health check with another status
// than SERVING (exit 1).
var errNotServing = errors.New("not serving")

func (a *app) healthCommand() *cobra.Command {
	var service string
	cmd := &cobra.Command{
		Use:   "health",
		Short: "print the grpc.health.v1 status; exit 1 unless SERVING",
		Long: `Print the grpc.health.v1 status of the server, or of one of its services.
Exit 1 unless it is SERVING, 3 when the server cannot be reached. -o json
prints the HealthCheckResponse.`,
		Args: cobra.NoArgs,
		RunE: a.runConn(func(ctx context.Context, c *conn, _ []string) error {
			resp, err := c.health.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
			if err != nil {
				return err
			}
			if a.json() {
				err = printProtoJSON(a.out, resp, true)
			} else {
				_, err = fmt.Fprintln(a.out, resp.GetStatus())
			}
			if err != nil {
				return err
			}
			if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				return errNotServing
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&service, "service", "", "service `name` to check, e.g. assignd.v1.AssignmentService (default: the whole server)")
	return cmd
}
