package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

func (a *app) policyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "check a policy file, or ask the server's policy what it does for a group",
		Args:  cobra.NoArgs,
		// Without a subcommand: the help, on stdout, exit 0; an unknown
		// subcommand is a usage error (cobra.NoArgs).
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.policyCheckCommand(), a.policyExplainCommand(), a.policyDiffCommand(), a.policyStatusCommand())
	return cmd
}

// policyCheckResult is policy check's -o json output.
type policyCheckResult struct {
	File     string          `json:"file"`
	Valid    bool            `json:"valid"`
	Revision string          `json:"revision,omitempty"`
	Rules    []string        `json:"rules,omitempty"`
	Problems []policyProblem `json:"problems,omitempty"`
}

// policyProblem is one policy.Error; a problem that is not one (the file
// cannot be read) has only a message.
type policyProblem struct {
	Line    int    `json:"line,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// policyCheckCommand validates a policy file locally, with the same code
// assignd loads it with, so that a file can be checked before it is
// deployed: "ok: ..." and exit 0, or every problem, one per line as
// "file:line: rule "r": field: message", and exit 1.
func (a *app) policyCheckCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "validate a policy file (no server needed); exit 1 listing every problem",
		Long: `Validate a policy file with the code assignd loads it with; no server is
needed. Prints "ok: revision R, rules ..." and exits 0, or prints every
problem, one per line as file:line: rule "r": field: message, and exits 1.
-o json prints {"file", "valid", "revision", "rules"} or {"file", "valid",
"problems": [{"line", "rule", "field", "message"}]}.`,
		Args: exactArgs(1),
		RunE: a.runE(func(_ context.Context, args []string) error {
			file := args[0]
			p, err := policy.Load(file)
			res := policyCheckResult{File: file, Valid: err == nil}
			if err == nil {
				res.Revision, res.Rules = p.Revision(), p.RuleNames()
			}
			for _, e := range problems(err) {
				var pe *policy.Error
				if errors.As(e, &pe) {
					res.Problems = append(res.Problems, policyProblem{Line: pe.Line, Rule: pe.Rule, Field: pe.Field, Message: pe.Msg})
				} else {
					res.Problems = append(res.Problems, policyProblem{Message: e.Error()})
				}
			}
			switch {
			case a.json():
				b, jerr := json.MarshalIndent(res, "", "  ")
				if jerr != nil {
					return jerr
				}
				if _, jerr := fmt.Fprintln(a.out, string(b)); jerr != nil {
					return jerr
				}
			case err != nil:
				for _, e := range problems(err) {
					fmt.Fprintln(a.errOut, e)
				}
			default:
				if _, err := fmt.Fprintf(a.out, "ok: revision %s, rules %s\n", p.Revision(), strings.Join(p.RuleNames(), ", ")); err != nil {
					return err
				}
			}
			if err != nil {
				return errReported
			}
			return nil
		}),
	}
}

// exactArgs is cobra.ExactArgs with a message that shows the usage line.
func exactArgs(n int) cobra.PositionalArgs { return rangeArgs(n, n) }

// rangeArgs is cobra.RangeArgs with a message that shows the usage line.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return fmt.Errorf("got %d arguments %q; usage: %s", len(args), args, cmd.UseLine())
		}
		return nil
	}
}

// problems flattens the errors.Join of policy.Load into its problems.
func problems(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// policyExplainCommand asks the server's policy what it does for a group:
// for one protocol name, or for every name the policy answers for.
func (a *app) policyExplainCommand() *cobra.Command {
	var subject, commonName string
	var streams bool
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "explain GROUP [PROTOCOL]",
		Short: "show the rule, assignor, parameters and shadow the server's policy picks for a group",
		Long: `Show what the server's policy does for a group: the rule that applies and
why, the group's rollout bucket, the assignor and rebalance protocol, the
parameters, the shadow, and why each earlier rule did not apply. Without
PROTOCOL, for every protocol name the policy answers for. With --streams,
for a Kafka Streams group whose AssignTasks label is GROUP: the rule and
task assignor it gets (no PROTOCOL). -o json prints the
ExplainPolicyResponse, or without PROTOCOL an object of them by protocol
name.`,
		Example: `  assignctl policy explain payments-ledger cooperative-sticky
  assignctl policy explain orders --caller-common-name leader-a -o json
  assignctl policy explain kip1071:wordcount --streams`,
		Args: rangeArgs(1, 2),
		RunE: a.runConn(func(ctx context.Context, c *conn, args []string) error {
			req := &assigndv1.ExplainPolicyRequest{GroupId: args[0]}
			if f := cmd.Flags(); f.Changed("caller-subject") || f.Changed("caller-common-name") {
				req.Caller = &assigndv1.CallerIdentity{Subject: subject, CommonName: commonName}
			}
			if streams {
				if len(args) > 1 {
					return fmt.Errorf("--streams explains a streams group, which has no protocol name; leave %q out", args[1])
				}
				req.GroupType = assigndv1.GroupType_GROUP_TYPE_STREAMS
				resp, err := c.assign.ExplainPolicy(ctx, req)
				if err != nil {
					return err
				}
				if a.json() {
					return printExplanationsJSON(a.out, nil, []*assigndv1.ExplainPolicyResponse{resp}, false)
				}
				printExplanation(a.out, req.GetGroupId(), "", resp)
				return nil
			}
			names := args[1:]
			if len(names) == 0 {
				var err error
				if names, err = protocolNames(ctx, c, req); err != nil {
					return err
				}
			}
			results := make([]*assigndv1.ExplainPolicyResponse, len(names))
			for i, name := range names {
				req.ProtocolName = name
				resp, err := c.assign.ExplainPolicy(ctx, req)
				if err != nil {
					return err
				}
				results[i] = resp
			}
			if a.json() {
				return printExplanationsJSON(a.out, names, results, len(args) == 1)
			}
			for i, resp := range results {
				if i > 0 {
					fmt.Fprintln(a.out)
				}
				printExplanation(a.out, req.GetGroupId(), names[i], resp)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&subject, "caller-subject", "", "explain for a leader with this certificate subject `DN` (default: this client's own identity)")
	cmd.Flags().StringVar(&commonName, "caller-common-name", "", "explain for a leader with this certificate common `name` (default: this client's own identity)")
	cmd.Flags().BoolVar(&streams, "streams", false, "explain for a Kafka Streams group (AssignTasks), GROUP being its label")
	return cmd
}

// protocolNames learns the protocol names the server's policy answers for
// from ListAssignors. A server that does not list them there (an assignd
// from before ListAssignorsResponse.protocol_names) is asked the old way:
// an explanation without a name is refused, and the refusal lists them.
func protocolNames(ctx context.Context, c *conn, req *assigndv1.ExplainPolicyRequest) ([]string, error) {
	list, err := c.assign.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{})
	if err != nil {
		return nil, err
	}
	if names := list.GetProtocolNames(); len(names) > 0 {
		return names, nil
	}
	_, err = c.assign.ExplainPolicy(ctx, req)
	if err == nil {
		return nil, errors.New("the server explained an empty protocol name; name one")
	}
	st := status.Convert(err)
	if st.Code() == codes.InvalidArgument {
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == assigndv1.ErrorDomain && info.GetMetadata()[assigndv1.MetadataProtocolNames] != "" {
				return strings.Split(info.GetMetadata()[assigndv1.MetadataProtocolNames], ","), nil
			}
		}
	}
	return nil, err
}

// printExplanation prints one explanation as labelled lines.
// printExplanation prints one explanation; name "" is a streams group's,
// which has no protocol name, parameters or shadow.
func printExplanation(w io.Writer, group, name string, r *assigndv1.ExplainPolicyResponse) {
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-12s "+format+"\n", append([]any{label}, args...)...)
	}
	if name == "" {
		fmt.Fprintf(w, "group %q  streams group  caller %s\n", group, callerString(r.GetCaller()))
	} else {
		fmt.Fprintf(w, "group %q  protocol %s  caller %s\n", group, name, callerString(r.GetCaller()))
	}
	row("policy", "%s", r.GetPolicy())
	if r.GetDescription() != "" {
		row("description", "%s", r.GetDescription())
	}
	row("reason", "%s", r.GetReason())
	row("bucket", "%d", r.GetBucket())
	if name == "" {
		row("assignor", "%s (a task assignor)", r.GetAssignor())
	} else {
		row("assignor", "%s (%s when the request leaves the rebalance protocol unspecified)", r.GetAssignor(), protocolName(r.GetRebalanceProtocol()))
		row("params", "%s", paramsString(r.GetParams()))
		if s := r.GetShadow(); s != nil {
			row("shadow", "%s %s", s.GetAssignor(), paramsString(s.GetParams()))
		} else {
			row("shadow", "-")
		}
	}
	for i, s := range r.GetSkipped() {
		label := ""
		if i == 0 {
			label = "skipped"
		}
		row(label, "%s: %s", s.GetRule(), s.GetReason())
	}
	if ro := r.GetRollout(); ro != nil {
		printRuleRollout(w, ro, time.Now(), "  ")
	}
}

func callerString(c *assigndv1.CallerIdentity) string {
	if c.GetSubject() == "" && c.GetCommonName() == "" {
		return "(none)"
	}
	return fmt.Sprintf("subject %q common name %q", c.GetSubject(), c.GetCommonName())
}

func paramsString(p *assigndv1.PolicyParams) string {
	s := fmt.Sprintf("rack_aware=%t max_moves_per_rebalance=%d freeze=%t", p.GetRackAware(), p.GetMaxMovesPerRebalance(), p.GetFreeze())
	if p.GetKeepMisalignedRacks() {
		s += " keep_misaligned_racks=true"
	}
	if p.LoadTolerance == nil && p.LoadHysteresis == nil && p.MaxCountSkew == nil {
		return s // a server that predates the load-aware parameters
	}
	s += selection.LoadParamsString(p.GetLoadTolerance(), p.GetLoadHysteresis(), int(p.GetMaxCountSkew()), p.GetLoadSource())
	if p.GetLoadCluster() != "" {
		s += " load_cluster=" + p.GetLoadCluster()
	}
	return s
}

// printExplanationsJSON prints the response for one protocol name, or an
// object of responses by protocol name when the names were not given.
func printExplanationsJSON(w io.Writer, names []string, results []*assigndv1.ExplainPolicyResponse, byName bool) error {
	opts := protojson.MarshalOptions{Multiline: true, Indent: "  ", EmitUnpopulated: true}
	if !byName {
		b, err := opts.Marshal(results[0])
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	var b strings.Builder
	b.WriteString("{")
	for i, r := range results {
		m, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString(",")
		}
		key, err := json.Marshal(names[i])
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n  %s: %s", key, m)
	}
	b.WriteString("\n}")
	_, err := fmt.Fprintln(w, b.String())
	return err
}
