package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
)

// policyCheckCommand validates a policy file locally, with the same code
// assignd loads it with, so that a file can be checked before it is
// deployed: "ok: ..." and exit 0, or every problem, one per line as
// "file:line: rule "r": field: message", and exit 1.
func policyCheckCommand() *command {
	return &command{
		name: "policy check", args: "FILE", minArgs: 1, maxArgs: 1, local: true,
		summary: "validate a policy file (no server needed); exit 1 listing every problem",
		run: func(_ context.Context, inv *invocation) error {
			p, err := policy.Load(inv.args[0])
			if err != nil {
				for _, e := range problems(err) {
					fmt.Fprintln(inv.errOut, e)
				}
				return errReported
			}
			_, err = fmt.Fprintf(inv.out, "ok: revision %s, rules %s\n", p.Revision(), strings.Join(p.RuleNames(), ", "))
			return err
		},
	}
}

// problems flattens the errors.Join of policy.Load into its problems.
func problems(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// optString is a string flag that records whether it was given, so that
// an explicitly empty value differs from an absent one.
type optString struct {
	value string
	set   bool
}

func (o *optString) String() string     { return o.value }
func (o *optString) Set(v string) error { o.value, o.set = v, true; return nil }

// policyExplainCommand asks the server's policy what it does for a group:
// for one protocol name, or for every name the policy answers for.
func policyExplainCommand() *command {
	var subject, commonName optString
	var output string
	return &command{
		name: "policy explain", args: "GROUP [PROTOCOL]", minArgs: 1, maxArgs: 2,
		summary: "show the rule, assignor, parameters and shadow the server's policy picks for a group",
		flags: func(fs *flag.FlagSet) {
			fs.Var(&subject, "caller-subject", "explain for a leader with this certificate subject `DN` (default: this client's own identity)")
			fs.Var(&commonName, "caller-common-name", "explain for a leader with this certificate common `name` (default: this client's own identity)")
			fs.StringVar(&output, "o", "table", "output `format`: table or json (the ExplainPolicyResponse; an object by protocol name without PROTOCOL)")
		},
		run: func(ctx context.Context, inv *invocation) error {
			if output != "table" && output != "json" {
				return usageError{fmt.Errorf("-o %q: want table or json", output)}
			}
			req := &assigndv1.ExplainPolicyRequest{GroupId: inv.args[0]}
			if subject.set || commonName.set {
				req.Caller = &assigndv1.CallerIdentity{Subject: subject.value, CommonName: commonName.value}
			}
			names := inv.args[1:]
			if len(names) == 0 {
				var err error
				if names, err = protocolNames(ctx, inv.conn, req); err != nil {
					return err
				}
			}
			results := make([]*assigndv1.ExplainPolicyResponse, len(names))
			for i, name := range names {
				req.ProtocolName = name
				resp, err := inv.conn.assign.ExplainPolicy(ctx, req)
				if err != nil {
					return err
				}
				results[i] = resp
			}
			if output == "json" {
				return printExplanationsJSON(inv.out, names, results, len(inv.args) == 1)
			}
			for i, resp := range results {
				if i > 0 {
					fmt.Fprintln(inv.out)
				}
				printExplanation(inv.out, req.GetGroupId(), names[i], resp)
			}
			return nil
		},
	}
}

// protocolNames learns the protocol names the server's policy answers for:
// an explanation without a name is refused, and the refusal lists them.
func protocolNames(ctx context.Context, c *conn, req *assigndv1.ExplainPolicyRequest) ([]string, error) {
	_, err := c.assign.ExplainPolicy(ctx, req)
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
func printExplanation(w io.Writer, group, name string, r *assigndv1.ExplainPolicyResponse) {
	fmt.Fprintf(w, "group %q  protocol %s  caller %s\n", group, name, callerString(r.GetCaller()))
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-12s "+format+"\n", append([]any{label}, args...)...)
	}
	row("policy", "%s", r.GetPolicy())
	if r.GetDescription() != "" {
		row("description", "%s", r.GetDescription())
	}
	row("reason", "%s", r.GetReason())
	row("bucket", "%d", r.GetBucket())
	row("assignor", "%s (%s when the request leaves the rebalance protocol unspecified)", r.GetAssignor(), protocolName(r.GetRebalanceProtocol()))
	row("params", "%s", paramsString(r.GetParams()))
	if s := r.GetShadow(); s != nil {
		row("shadow", "%s %s", s.GetAssignor(), paramsString(s.GetParams()))
	} else {
		row("shadow", "-")
	}
	for i, s := range r.GetSkipped() {
		label := ""
		if i == 0 {
			label = "skipped"
		}
		row(label, "%s: %s", s.GetRule(), s.GetReason())
	}
}

func callerString(c *assigndv1.CallerIdentity) string {
	if c.GetSubject() == "" && c.GetCommonName() == "" {
		return "(none)"
	}
	return fmt.Sprintf("subject %q common name %q", c.GetSubject(), c.GetCommonName())
}

func paramsString(p *assigndv1.PolicyParams) string {
	return fmt.Sprintf("rack_aware=%t max_moves_per_rebalance=%d freeze=%t", p.GetRackAware(), p.GetMaxMovesPerRebalance(), p.GetFreeze())
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
