package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func (a *app) assignCommand() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "assign -f FILE",
		Short: "send an AssignRequest (protojson) and print the assignment",
		Long: `Send an AssignRequest, written as protojson (see examples/), and print the
assignment: a summary and one row per member, or with -o json the
AssignResponse.`,
		Example: `  assignctl assign -f examples/range-racks.json
  cat request.json | assignctl assign -f - -o json`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(ctx context.Context, _ []string) error {
			req, err := readRequest(file, a.in)
			if err != nil {
				return err
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.close()
			resp, err := c.assign.Assign(ctx, req)
			if err != nil {
				return err
			}
			if a.json() {
				return printProtoJSON(a.out, resp, false)
			}
			return printAssignment(a.out, req, resp)
		}),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "protojson AssignRequest `file`, - for stdin (see examples/)")
	return cmd
}

func readRequest(file string, stdin io.Reader) (*assigndv1.AssignRequest, error) {
	var data []byte
	var err error
	switch file {
	case "":
		return nil, usageError{errors.New("-f FILE is required (- reads stdin)")}
	case "-":
		data, err = io.ReadAll(stdin)
	default:
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, usageError{err}
	}
	req := &assigndv1.AssignRequest{}
	if err := protojson.Unmarshal(data, req); err != nil {
		return nil, usageError{fmt.Errorf("%s is not a protojson AssignRequest: %w", file, err)}
	}
	return req, nil
}

// printAssignment prints a summary and one row per member.
func printAssignment(w io.Writer, req *assigndv1.AssignRequest, resp *assigndv1.AssignResponse) error {
	fmt.Fprintf(w, "group %q  generation %d  assignor %s@%d  protocol %s  policy %s\n",
		req.GetGroupId(), req.GetGenerationId(), resp.GetAssignor(), resp.GetAssignorVersion(),
		protocolName(resp.GetRebalanceProtocol()), resp.GetPolicy())
	if resp.GetFollowupRequired() {
		fmt.Fprintf(w, "follow-up rebalance required: %d partitions pending: %s\n", count(resp.GetPending()), ranges(resp.GetPending()))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tCOUNT\tASSIGNED\tREVOKED")
	for _, a := range resp.GetAssignments() {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", a.GetMemberId(), count(a.GetPartitions()), ranges(a.GetPartitions()), ranges(a.GetRevoked()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warning := range resp.GetWarnings() {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	return nil
}

func count(tps []*assigndv1.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.GetPartitions())
	}
	return n
}

// ranges renders partitions compactly: "orders[0-3,7] payments[1]", or
// "-" for none.
func ranges(tps []*assigndv1.TopicPartitions) string {
	if len(tps) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(tps))
	for _, tp := range tps {
		var b strings.Builder
		b.WriteString(tp.GetTopic())
		b.WriteByte('[')
		ps := tp.GetPartitions()
		for i := 0; i < len(ps); {
			j := i
			for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
				j++
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(ps[i])))
			if j > i {
				b.WriteByte('-')
				b.WriteString(strconv.Itoa(int(ps[j])))
			}
			i = j + 1
		}
		b.WriteByte(']')
		parts = append(parts, b.String())
	}
	return strings.Join(parts, " ")
}
