package policy

import (
	"fmt"
	"regexp"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/task"
	"github.com/assignd/assignd/server/selection"
)

// DefaultRule is the name of the final rule, which maps each standard
// protocol name to its standard assignor. Every policy ends with it: a file
// may write it as its last rule (to set params or a shadow for the groups
// no earlier rule takes); otherwise the built-in one is appended.
const DefaultRule = "default"

// standardAssignor is the assignor value that selects, for a standard
// protocol name, the assignor of that name at its standard version
// (cooperative-sticky@1, range@1, roundrobin@1, sticky@1).
const standardAssignor = "standard"

// rule is one compiled, validated rule. It is immutable once built, so a
// Policy can be read by any number of requests at once.
type rule struct {
	name        string
	description string

	// Match: every present clause must match (AND); within a clause any
	// entry may (OR). Absent clauses match everything.
	groups    map[string]struct{}
	prefixes  []string
	globs     []*regexp.Regexp
	protocols []string
	callers   []callerSpec
	// groupTypes is match.group_types; nil matches every group type.
	groupTypes []selection.GroupType

	// Rollout. basisPoints is the percentage in hundredths (Buckets =
	// every group); include wins over the percentage, exclude over both.
	rollout     bool
	basisPoints int
	salt        string
	include     map[string]struct{}
	exclude     map[string]struct{}
	// steps and gate make a staged rollout (steps nil: none); basisPoints
	// is then the first step's, served until the agreed state says
	// otherwise (see StepView).
	steps []RolloutStep
	gate  *Gate

	// Choice. assignor is nil for "standard", which is resolved per
	// protocol name.
	assignor assign.Assignor
	params   selection.PolicyParams
	options  []assign.Option
	shadow   *shadowChoice
	// taskAssignor runs for streams groups; nil: the rule does not apply
	// to them (see tasks.go).
	taskAssignor task.Assignor

	// policy is "name/revision", as the response reports it.
	policy string
	// selected are the selection metric's options (its attributes) for
	// each assignor the rule can run, built once so that the request path
	// does not allocate.
	selected map[assignorKey][]metric.AddOption
	// selectedTask is the selection metric's options for taskAssignor.
	selectedTask []metric.AddOption

	// loadCluster is params.load_cluster's cluster; nil: the server's own.
	loadCluster *selection.LoadCluster
}

// assignorKey identifies an assignor without comparing interface values,
// whose dynamic types need not be comparable, and without building the
// "name@version" string on the request path.
type assignorKey struct {
	name    string
	version int
}

func keyOf(a assign.Assignor) assignorKey { return assignorKey{a.Name(), a.Version()} }

// setAttrs fills selected once the rule is compiled.
func (r *rule) setAttrs(revision string) {
	r.selected = make(map[assignorKey][]metric.AddOption)
	add := func(a assign.Assignor) {
		r.selected[keyOf(a)] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
			attribute.String("rule", r.name), attribute.String("revision", revision), attribute.String("assignor", assign.Ref(a))))}
	}
	if r.taskAssignor != nil {
		r.selectedTask = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
			attribute.String("rule", r.name), attribute.String("revision", revision),
			attribute.String("assignor", task.Ref(r.taskAssignor)), attribute.String("group_type", selection.GroupStreams.String())))}
	}
	if r.assignor != nil {
		add(r.assignor)
		return
	}
	for _, n := range standardNames {
		if a, ok := assign.Lookup(n, 0); ok {
			add(a)
		}
	}
}

// shadowChoice is the assignor a rule evaluates beside the one it returns.
type shadowChoice struct {
	assignor assign.Assignor
	params   selection.PolicyParams
	options  []assign.Option
}

func (r *rule) hasGroupClause() bool {
	return len(r.groups) > 0 || len(r.prefixes) > 0 || len(r.globs) > 0
}

// groupMatches reports whether the group clause matches id.
func (r *rule) groupMatches(id string) bool {
	if !r.hasGroupClause() {
		return true
	}
	if _, ok := r.groups[id]; ok {
		return true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	for _, g := range r.globs {
		if g.MatchString(id) {
			return true
		}
	}
	return false
}

func (r *rule) protocolMatches(name string) bool {
	if len(r.protocols) == 0 {
		return true
	}
	for _, p := range r.protocols {
		if p == name {
			return true
		}
	}
	return false
}

// callerMatches: an entry matches when each field it sets equals the
// caller's; an unauthenticated caller (both empty) matches no entry.
func (r *rule) callerMatches(c selection.Caller) bool {
	if len(r.callers) == 0 {
		return true
	}
	for _, e := range r.callers {
		if (e.Subject == "" || e.Subject == c.Subject) && (e.CommonName == "" || e.CommonName == c.CommonName) {
			return true
		}
	}
	return false
}

// resolve returns the assignor the rule runs for a protocol name: its own,
// or for "standard" the standard assignor of that name (nil when the name
// has none, and the rule does not apply).
func (r *rule) resolve(name string) assign.Assignor {
	if r.assignor != nil {
		return r.assignor
	}
	if !isStandard(name) {
		return nil
	}
	a, _ := assign.Lookup(name, 0)
	return a
}

// verdict is why a rule applies to a query or not. The request path only
// needs to know whether it applies; Explain turns it into words.
type verdict int8

const (
	otherProtocol verdict = iota
	otherGroup
	otherCaller
	otherGroupType
	noStandard
	noTaskAssignor
	excluded
	bucketAbove
	rolledBack
	// Verdicts from here on apply.
	matched
	included
	bucketBelow
)

func (v verdict) applies() bool { return v >= matched }

// evaluate decides whether the rule applies to a consumer group and with
// which assignor, bp being the basis points its rollout serves now
// (r.basisPoints, or a staged rule's agreed step; -1: rolled back). The
// bucket is only hashed when a rollout needs it (-1 otherwise), so the
// request path pays for no hash and allocates nothing.
func (r *rule) evaluate(groupID, name string, caller selection.Caller, bp int) (verdict, assign.Assignor, int) {
	switch {
	case !r.typeMatches(selection.GroupConsumer):
		return otherGroupType, nil, -1
	case !r.protocolMatches(name):
		return otherProtocol, nil, -1
	}
	a := r.resolve(name)
	v, b := r.admits(groupID, caller, a != nil, noStandard, bp)
	if !v.applies() {
		return v, nil, b
	}
	return v, a, b
}

// admits decides, after the group-type and protocol clauses, whether the
// rule applies to the group: its group and caller clauses, whether it has
// an assignor for the group (else the verdict none), and its rollout.
func (r *rule) admits(groupID string, caller selection.Caller, has bool, none verdict, bp int) (verdict, int) {
	switch {
	case !r.groupMatches(groupID):
		return otherGroup, -1
	case !r.callerMatches(caller):
		return otherCaller, -1
	case !has:
		return none, -1
	case !r.rollout:
		return matched, -1
	case bp < 0:
		return rolledBack, -1
	}
	if _, ok := r.exclude[groupID]; ok {
		return excluded, -1
	}
	if _, ok := r.include[groupID]; ok {
		return included, -1
	}
	b := Bucket(r.salt, groupID)
	if b < bp {
		return bucketBelow, b
	}
	return bucketAbove, b
}

// reason says in words why the rule did or did not apply; bp and step are
// what its rollout serves (step is -1 for a rule without steps).
func (r *rule) reason(v verdict, groupID, name string, caller selection.Caller, bucket, bp, step int) string {
	what := "rollout.percent " + percentString(bp)
	if step >= 0 {
		what = fmt.Sprintf("rollout step %d of %d, percent %s", min(step, len(r.steps)-1)+1, len(r.steps), percentString(bp))
	}
	switch v {
	case otherProtocol:
		return fmt.Sprintf("protocol name %q is not in match.protocols", name)
	case otherGroup:
		return fmt.Sprintf("group %q matches none of match.groups, group_prefixes, group_globs", groupID)
	case otherCaller:
		return fmt.Sprintf("caller (subject %q, common name %q) matches no entry of match.callers", caller.Subject, caller.CommonName)
	case noStandard:
		return fmt.Sprintf("protocol name %q has no standard assignor", name)
	case otherGroupType:
		return "the group's type is not in match.group_types"
	case noTaskAssignor:
		return "the rule names no task_assignor for streams groups"
	case excluded:
		return "group is in rollout.exclude"
	case included:
		return "group is in rollout.include"
	case bucketBelow:
		return fmt.Sprintf("bucket %d is below %d (%s)", bucket, bp, what)
	case bucketAbove:
		return fmt.Sprintf("bucket %d is not below %d (%s)", bucket, bp, what)
	case rolledBack:
		return "the staged rollout rolled back: its gate failed"
	}
	return "matches"
}

// percentString formats basis points as a percentage without trailing
// zeros: 1250 → "12.5".
func percentString(bp int) string {
	s := fmt.Sprintf("%d.%02d", bp/100, bp%100)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
