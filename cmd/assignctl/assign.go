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

	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func (a *app) assignCommand() *cobra.Command {
	var file string
	var why bool
	var whyLimit int32
	cmd := &cobra.Command{
		Use:   "assign -f FILE",
		Short: "send an AssignRequest (protojson) and print the assignment",
		Long: `Send an AssignRequest, written as protojson (see examples/), and print the
assignment: a summary and one row per member, or with -o json the
AssignResponse. With --why, the response also lists each partition that
changes owner, is withheld or is held back, and why (move_detail_limit).`,
		Example: `  assignctl assign -f examples/range-racks.json
  assignctl assign -f examples/cooperative-explicit.json --why
  cat request.json | assignctl assign -f - -o json`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(ctx context.Context, _ []string) error {
			req, err := readRequest(file, a.in)
			if err != nil {
				return err
			}
			if why {
				req.MoveDetailLimit = max(req.GetMoveDetailLimit(), whyLimit)
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
			if err := printAssignment(a.out, req, resp); err != nil {
				return err
			}
			if why {
				return printWhy(a.out, resp)
			}
			return nil
		}),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "protojson AssignRequest `file`, - for stdin (see examples/)")
	cmd.Flags().BoolVar(&why, "why", false, "list the partitions that move and why")
	cmd.Flags().Int32Var(&whyLimit, "why-limit", 1000, "list at most `n` partitions with --why (the server caps it)")
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

// printWhy prints the counts by reason and one row per listed partition
// that changes owner, is withheld or is held back.
func printWhy(w io.Writer, resp *assigndv1.AssignResponse) error {
	total := int32(0)
	for _, r := range resp.GetMoveReasons() {
		total += r.GetPartitions()
	}
	if total == 0 {
		_, err := fmt.Fprintln(w, "why: no partition changes owner")
		return err
	}
	fmt.Fprintf(w, "why: %s\n", reasonCounts(resp.GetMoveReasons()))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tPARTITION\tFROM\tTO\tREASON")
	for _, m := range resp.GetMoves() {
		to := m.GetToMemberId()
		if to == "" {
			to = "(withheld)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", m.GetTopic(), m.GetPartition(), dash(m.GetFromMemberId()), to,
			apiconv.MoveReasonFromAPI(m.GetReason()).Text())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := int32(len(resp.GetMoves())); n < total {
		fmt.Fprintf(w, "(%d of %d listed; raise --why-limit for more)\n", n, total)
	}
	return nil
}

// reasonCounts writes counts by reason: "balance 3, no_owner 2".
func reasonCounts(rs []*assigndv1.MoveReasonCount) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d", apiconv.MoveReasonFromAPI(r.GetReason()), r.GetPartitions())
	}
	return strings.Join(parts, ", ")
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
