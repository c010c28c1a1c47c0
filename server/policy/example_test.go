package policy_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

const examplePolicy = `version: 1
rules:
  - name: payments-canary
    match:
      group_prefixes: [payments-]
      protocols: [cooperative-sticky]
    rollout:
      percent: 10
      include: [payments-ledger]
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 50}
    shadow:
      assignor: cooperative-sticky@1
`

func ExampleParse() {
	p, err := policy.Parse("policy.yaml", []byte(examplePolicy))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.RuleNames())
	for _, group := range []string{"payments-ledger", "payments-eu-1", "orders"} {
		e, _ := p.Explain(group, "cooperative-sticky", selection.Caller{})
		fmt.Printf("%s: %s runs %s (%s)\n", group, e.Rule, e.Assignor, e.Reason)
	}
	// Output:
	// [payments-canary default]
	// payments-ledger: payments-canary runs cooperative-sticky@1 (group is in rollout.include)
	// payments-eu-1: default runs cooperative-sticky@1 (matches)
	// orders: default runs cooperative-sticky@1 (matches)
}

func ExampleParse_invalid() {
	_, err := policy.Parse("policy.yaml", []byte(`version: 1
rules:
  - name: fast
    match: {protocols: [cooperative-sticky]}
    assignor: range@1
    rollout: {percent: 150}
`))
	fmt.Println(errors.Is(err, policy.ErrInvalidPolicy))
	fmt.Println(err)
	// Output:
	// true
	// policy.yaml:6: rule "fast": rollout.percent: 150 is outside 0..100
	// policy.yaml:5: rule "fast": assignor: range@1 cannot serve this rule: clients of protocol name(s) "cooperative-sticky" run COOPERATIVE and EAGER, and it does not support COOPERATIVE
}

func ExampleBucket() {
	// The same group is in the same bucket everywhere, forever; a rule with
	// percent 30 takes buckets 0..2999.
	fmt.Println(policy.Bucket("", "orders"), policy.Bucket("", "orders") < 3000)
	// Output: 2548 true
}

func ExamplePolicy_Explain() {
	p, _ := policy.Parse("policy.yaml", []byte(examplePolicy))
	e, _ := p.Explain("payments-ledger", "cooperative-sticky", selection.Caller{CommonName: "leader-a"})
	fmt.Println("rule:", e.Rule)
	fmt.Println("bucket:", e.Bucket)
	fmt.Println("assignor:", e.Assignor, e.Protocol)
	fmt.Println("params:", e.Params)
	fmt.Println("shadow:", e.Shadow.Assignor, e.Shadow.Params)
	// Output:
	// rule: payments-canary
	// bucket: 7248
	// assignor: cooperative-sticky@1 COOPERATIVE
	// params: rack_aware=true max_moves_per_rebalance=50 freeze=false
	// shadow: cooperative-sticky@1 rack_aware=true max_moves_per_rebalance=0 freeze=false
}

func ExampleSource_Select() {
	p, _ := policy.Parse("policy.yaml", []byte(examplePolicy))
	src, _ := policy.NewSource(p, policy.WithLogger(slog.New(slog.DiscardHandler)))
	defer src.Close()

	// This is what the server does on every Assign call.
	sel, err := src.Select(context.Background(), selection.Query{
		GroupID: "payments-ledger", ProtocolName: "cooperative-sticky", Protocol: assign.Cooperative,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(assign.Ref(sel.Assignor), sel.Policy == "payments-canary/"+p.Revision(), sel.Observe != nil)

	_, err = src.Select(context.Background(), selection.Query{GroupID: "g", ProtocolName: "my-protocol"})
	fmt.Println(errors.Is(err, selection.ErrUnknownProtocol))
	// Output:
	// cooperative-sticky@1 true true
	// true
}

func ExampleWatch() {
	dir, _ := os.MkdirTemp("", "policy-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "policy.yaml")
	_ = os.WriteFile(path, []byte("version: 1\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := policy.Watch(ctx, path, policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	fmt.Println(src.Policy().RuleNames())

	// Replace the file as an editor would; the watcher picks it up after
	// its debounce, and Reload applies it at once.
	_ = os.WriteFile(path+".tmp", []byte(examplePolicy), 0o644)
	_ = os.Rename(path+".tmp", path)
	if err := src.Reload(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println(src.Policy().RuleNames())

	// A broken file is rejected; the last good revision keeps serving.
	_ = os.WriteFile(path, []byte("version: 1\nrules: [{name: x, assignor: nope@1}]\n"), 0o644)
	fmt.Println(src.Reload(ctx) != nil, src.Policy().RuleNames())
	// Output:
	// [default]
	// [payments-canary default]
	// true [payments-canary default]
}
