package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func healthCommand() *command {
	var service string
	return &command{
		name: "health", args: "[--service NAME]",
		summary: "print the grpc.health.v1 status; exit 1 unless SERVING",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&service, "service", "", "service `name` to check, e.g. assignd.v1.AssignmentService (default: the whole server)")
		},
		run: func(ctx context.Context, inv *invocation) error {
			out := inv.out
			resp, err := inv.conn.health.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
			if err != nil {
				return err
			}
			fmt.Fprintln(out, resp.GetStatus())
			if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				return errors.New("not serving")
			}
			return nil
		},
	}
}
