package policy_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// TestParseRejects lists every kind of invalid policy. Each expected
// string must appear in one of the reported problems, which name the file,
// line, rule and field.
func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"empty file", "", []string{"test.yaml: the file is empty"}},
		{"whitespace only", "\n  \n", []string{"the file is empty"}},
		{"syntax error", "version: 1\nrules: [\n", []string{"test.yaml:"}},
		{"not a mapping", "- a\n- b\n", []string{"test.yaml:1: cannot unmarshal"}},
		{"two documents", "version: 1\n---\nversion: 1\n", []string{"more than one YAML document"}},
		{"missing version", "rules: []\n", []string{`test.yaml: version: missing; write "version: 1" first`}},
		{"future version", "version: 2\n", []string{"test.yaml:1: version: 2 is not supported"}},
		{"unknown top-level field", "version: 1\nrevision: abc\n", []string{`test.yaml:2: unknown field "revision" in the top level`}},
		{"unknown rule field", `version: 1
rules:
  - name: a
    asignor: range@1
`, []string{`test.yaml:4: unknown field "asignor" in a rule`}},
		{"unknown params field", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    params: {max_moves: 3}
`, []string{`test.yaml:5: unknown field "max_moves" in params`}},
		{"wrong type", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    rollout: {percent: lots}
`, []string{"test.yaml:5: cannot unmarshal"}},
		{"rule without name", `version: 1
rules:
  - assignor: cooperative-sticky@1
`, []string{`test.yaml:3: rule "rules[0]": name: a rule needs a name`}},
		{"bad rule name", `version: 1
rules:
  - name: team/a
    assignor: cooperative-sticky@1
`, []string{`test.yaml:3: rule "team/a": name: must be 1-63`}},
		{"duplicate rule name", `version: 1
rules:
  - name: a
    match: {groups: [x]}
    assignor: cooperative-sticky@1
  - name: a
    match: {groups: [y]}
    assignor: cooperative-sticky@1
`, []string{`test.yaml:6: rule "a": name: duplicate rule name (also rules[0])`}},
		{"default not last", `version: 1
rules:
  - name: default
  - name: b
    match: {groups: [y]}
    assignor: cooperative-sticky@1
`, []string{`test.yaml:3: rule "default": name: the "default" rule must be the last rule`}},
		{"default with match and rollout", `version: 1
rules:
  - name: default
    match: {groups: [x]}
    rollout: {percent: 5}
`, []string{`rule "default": match: the "default" rule applies to every group`, `rule "default": rollout:`}},
		{"default with another assignor", `version: 1
rules:
  - name: default
    assignor: cooperative-sticky@1
`, []string{`test.yaml:4: rule "default": assignor: the "default" rule runs the standard assignor`}},
		{"missing assignor", `version: 1
rules:
  - name: a
    match: {groups: [x]}
`, []string{`test.yaml:3: rule "a": assignor: a rule needs an assignor`}},
		{"unknown assignor version", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@99
`, []string{`test.yaml:4: rule "a": assignor: unknown assignor "cooperative-sticky@99"; runnable: `, "range@1"}},
		{"unknown assignor name", `version: 1
rules:
  - name: a
    assignor: fancy@1
`, []string{`unknown assignor "fancy@1"`}},
		{"assignor without version", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky
`, []string{`"cooperative-sticky" is not name@version`}},
		{"assignor with odd version", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@+1
`, []string{`"cooperative-sticky@+1" is not name@version`}},
		{"eager assignor behind cooperative name", `version: 1
rules:
  - name: a
    match: {protocols: [cooperative-sticky]}
    assignor: range@1
`, []string{`test.yaml:5: rule "a": assignor: range@1 cannot serve this rule: clients of protocol name(s) "cooperative-sticky" run COOPERATIVE and EAGER, and it does not support COOPERATIVE`}},
		{"eager assignor without protocol match", `version: 1
rules:
  - name: a
    match: {group_prefixes: [x-]}
    assignor: roundrobin@1
`, []string{`assignor: roundrobin@1 cannot serve this rule: the rule matches every protocol name`}},
		{"eager assignor behind custom name", `version: 1
rules:
  - name: a
    match: {protocols: [my-assignor]}
    assignor: sticky@1
`, []string{`sticky@1 cannot serve this rule`, "does not support COOPERATIVE"}},
		{"standard for a custom name", `version: 1
rules:
  - name: a
    match: {protocols: [range, my-assignor]}
    assignor: standard
`, []string{`assignor: "standard": protocol name "my-assignor" has no standard assignor`}},
		{"shadow unknown", `version: 1
rules:
  - name: a
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    shadow: {assignor: cooperative-sticky@99}
`, []string{`test.yaml:6: rule "a": shadow.assignor: unknown assignor "cooperative-sticky@99"`}},
		{"shadow without assignor", `version: 1
rules:
  - name: a
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    shadow: {params: {freeze: true}}
`, []string{`shadow.assignor: a shadow needs an assignor`}},
		{"shadow cannot serve", `version: 1
rules:
  - name: a
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    shadow: {assignor: range@1}
`, []string{`shadow.assignor: range@1 cannot serve this rule`}},
		{"shadow of default cannot serve cooperative", `version: 1
rules:
  - name: default
    shadow: {assignor: range@1}
`, []string{`rule "default": shadow.assignor: range@1 cannot serve this rule`}},
		{"shadow identical", `version: 1
rules:
  - name: a
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {freeze: true}
    shadow: {assignor: cooperative-sticky@1, params: {freeze: true}}
`, []string{`shadow: the shadow is the rule's own assignor with the same params`}},
		{"negative max moves", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    params:
      max_moves_per_rebalance: -1
    shadow:
      assignor: cooperative-sticky@1
      params: {max_moves_per_rebalance: -2}
`, []string{`test.yaml:6: rule "a": params.max_moves_per_rebalance: -1 is negative`,
			`test.yaml:9: rule "a": shadow.params.max_moves_per_rebalance: -2 is negative`}},
		{"load params out of range", `version: 1
rules:
  - name: a
    assignor: load-sticky@1
    params:
      load_tolerance: -0.1
      load_hysteresis: .nan
      max_count_skew: -1
      load_source: zookeeper
    shadow:
      assignor: cooperative-sticky@1
      params: {load_tolerance: 11}
`, []string{`test.yaml:6: rule "a": params.load_tolerance: -0.1 is not a fraction from 0 to 10`,
			`test.yaml:7: rule "a": params.load_hysteresis: NaN is not a fraction from 0 to 10`,
			`test.yaml:8: rule "a": params.max_count_skew: -1 is negative`,
			`params.load_source: "zookeeper" is not a load source; the one there is: "kafka"`,
			`rule "a": shadow.params.load_tolerance: 11 is not a fraction from 0 to 10`}},
		{"percent out of range", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    rollout: {percent: 100.5}
`, []string{`test.yaml:5: rule "a": rollout.percent: 100.5 is outside 0..100`}},
		{"negative percent", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    rollout: {percent: -1}
`, []string{`rollout.percent: -1 is outside 0..100`}},
		{"percent too precise", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    rollout: {percent: 12.345}
`, []string{`rollout.percent: 12.345 has more than two decimals`}},
		{"rollout without percent", `version: 1
rules:
  - name: a
    assignor: cooperative-sticky@1
    rollout: {include: [x]}
`, []string{`test.yaml:5: rule "a": rollout: a rollout needs percent`}},
		{"include the rule cannot match", `version: 1
rules:
  - name: a
    match: {group_prefixes: [pay-]}
    rollout:
      percent: 5
      include: [pay-1, orders]
      exclude: [bill-2]
    assignor: cooperative-sticky@1
`, []string{`test.yaml:7: rule "a": rollout.include[1]: group "orders" does not match the rule's match clause`,
			`test.yaml:8: rule "a": rollout.exclude[0]: group "bill-2" does not match`}},
		{"include and exclude overlap", `version: 1
rules:
  - name: a
    rollout: {percent: 5, include: [x, y, x], exclude: [y]}
    assignor: cooperative-sticky@1
`, []string{`rollout.include[2]: duplicate group "x"`, `rollout.exclude[0]: group "y" is in both include and exclude`}},
		{"bad glob", `version: 1
rules:
  - name: a
    match:
      group_globs:
        - ok-*
        - "bad-[a"
        - 'trail\'
        - "[z-a]"
    assignor: cooperative-sticky@1
`, []string{`test.yaml:7: rule "a": match.group_globs[1]: bad glob "bad-[a"`, `match.group_globs[2]: bad glob`, `match.group_globs[3]: bad glob "[z-a]": range`}},
		{"empty prefix", `version: 1
rules:
  - name: a
    match: {group_prefixes: [""]}
    assignor: cooperative-sticky@1
`, []string{`match.group_prefixes[0]: an empty prefix matches every group`}},
		{"empty and duplicate protocols", `version: 1
rules:
  - name: a
    match: {protocols: ["", range, range]}
    assignor: cooperative-sticky@1
`, []string{`match.protocols[0]: empty protocol name`, `match.protocols[2]: duplicate protocol name "range"`}},
		{"empty match lists", `version: 1
rules:
  - name: a
    match:
      groups: []
      protocols: []
    assignor: cooperative-sticky@1
`, []string{`test.yaml:5: rule "a": match.groups: an empty list would match nothing`, `test.yaml:6: rule "a": match.protocols: an empty list`}},
		{"duplicate group", `version: 1
rules:
  - name: a
    match: {groups: [x, x]}
    assignor: cooperative-sticky@1
`, []string{`match.groups[1]: duplicate group "x"`}},
		{"empty caller", `version: 1
rules:
  - name: a
    match:
      callers:
        - {}
    assignor: cooperative-sticky@1
`, []string{`test.yaml:6: rule "a": match.callers[0]: a caller entry needs subject or common_name`}},
		{"unreachable rule", `version: 1
rules:
  - name: everything
    assignor: cooperative-sticky@1
    task_assignor: sticky@1
  - name: never
    match: {groups: [x]}
    assignor: cooperative-sticky@1
  - name: default
`, []string{`test.yaml:6: rule "never": unreachable: rule "everything" before it applies to every group`,
			`test.yaml:9: rule "default": unreachable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Parse("test.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse accepted it (rules %v)", p.RuleNames())
			}
			if !errors.Is(err, policy.ErrInvalidPolicy) {
				t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			var pe *policy.Error
			if !errors.As(err, &pe) || pe.File != "test.yaml" {
				t.Errorf("error is not a *policy.Error naming the file: %#v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// A rollout that takes everyone does not make later rules unreachable when
// it excludes groups, and a rule limited by protocol or caller does not
// either.
func TestParseAcceptsReachableRules(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: all-but-one
    rollout: {percent: 100, exclude: [x]}
    assignor: cooperative-sticky@1
  - name: coop-only
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {rack_aware: false}
  - name: for-x
    match: {groups: [x]}
    assignor: cooperative-sticky@1
    params: {freeze: true}
`)
	if got := strings.Join(p.RuleNames(), ","); got != "all-but-one,coop-only,for-x,default" {
		t.Errorf("rules = %s", got)
	}
	e, err := p.Explain("x", assign.NameCooperativeSticky, selection.Caller{})
	if err != nil || e.Rule != "coop-only" || e.Params.RackAware {
		t.Errorf("x: %+v, %v", e, err)
	}
}

func TestRevisionIsContentHash(t *testing.T) {
	data := []byte("version: 1\n# a comment\n")
	p, err := policy.Parse("a.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := hex.EncodeToString(sum[:])[:12]; p.Revision() != want {
		t.Errorf("revision %s, want %s", p.Revision(), want)
	}
	q := mustParse(t, "version: 1\n# another comment\n")
	if q.Revision() == p.Revision() {
		t.Error("different content, same revision")
	}
	again, _ := policy.Parse("b.yaml", data)
	if again.Revision() != p.Revision() {
		t.Error("same content, different revision")
	}
	dsum := sha256.Sum256(policy.DefaultYAML())
	if want := hex.EncodeToString(dsum[:])[:12]; policy.Default().Revision() != want {
		t.Errorf("default revision %s, want %s", policy.Default().Revision(), want)
	}
	if policy.Default().File() != policy.EmbeddedFile {
		t.Errorf("default file %q", policy.Default().File())
	}
}

func TestLoadAndCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := policy.Check(good); err != nil {
		t.Errorf("Check(good) = %v", err)
	}
	p, err := policy.Load(good)
	if err != nil || p.File() != good {
		t.Fatalf("Load = %v, %v", p, err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - name: a\n    assignor: nope@1\n  - name: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = policy.Check(bad)
	var all []*policy.Error
	for _, e := range unjoin(err) {
		var pe *policy.Error
		if errors.As(e, &pe) {
			all = append(all, pe)
		}
	}
	if len(all) != 2 || all[0].Rule != "a" || all[0].Field != "assignor" || all[0].Line != 4 || all[1].Rule != "b" {
		t.Errorf("Check(bad) should report both rules' problems, got %v", err)
	}

	if err := policy.Check(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check(missing) = %v, want a not-exist error", err)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, append([]byte("version: 1\n"), make([]byte, policy.MaxFileSize)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := policy.Check(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Check(big) = %v", err)
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// The example shipped in the repository must stay valid.
func TestExamplePolicyIsValid(t *testing.T) {
	if _, ok := assign.Lookup(assign.NameCooperativeSticky, 2); !ok {
		t.Skip("examples/policy.yaml uses cooperative-sticky@2, which this engine does not register yet")
	}
	p, err := policy.Load(filepath.Join("..", "..", "examples", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "freeze-billing,payments-v2,payments-v1,analytics-roundrobin,payments-streams,default"
	if got := strings.Join(p.RuleNames(), ","); got != want {
		t.Errorf("rules = %s, want %s", got, want)
	}
}
