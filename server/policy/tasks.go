package policy

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assignd/assignd/assign/task"
	"github.com/assignd/assignd/server/selection"
)

// Streams groups (KIP-1071) run a task assignor, not a partition assignor:
// a rule serves them when match.group_types lets it (absent: every type)
// and it names task_assignor. The rest of a rule means what it means for
// consumer groups, with the group's label (AssignTasksRequest.group_id)
// as its group id: the group clauses, callers, bindings, the rollout and
// its steps. What cannot apply to a task assignor is refused where it is
// written: match.protocols (a streams group has no protocol name), params
// (they tune partition assignors; task assignors take none) and shadow
// (it compares partition plans) on a rule that matches streams groups
// only; on a rule for both types they serve its consumer groups.

// groupTypeNames are the values match.group_types takes.
var groupTypeNames = map[string]selection.GroupType{
	selection.GroupConsumer.String(): selection.GroupConsumer,
	selection.GroupStreams.String():  selection.GroupStreams,
}

// typeMatches reports whether match.group_types lets the rule apply to gt.
func (r *rule) typeMatches(gt selection.GroupType) bool {
	return r.groupTypes == nil || slices.Contains(r.groupTypes, gt)
}

// streamsOnly reports whether the rule matches streams groups and nothing
// else.
func (r *rule) streamsOnly() bool {
	return len(r.groupTypes) == 1 && r.groupTypes[0] == selection.GroupStreams
}

func (c *compiler) compileGroupTypes(r *rule, names []string, add func(field, format string, args ...any)) {
	if names == nil {
		return
	}
	if len(names) == 0 {
		add("match.group_types", "an empty list would match nothing, yet an absent clause matches everything; leave match.group_types out or list something")
		return
	}
	r.groupTypes = []selection.GroupType{}
	for i, n := range names {
		gt, ok := groupTypeNames[n]
		switch {
		case !ok:
			add(fmt.Sprintf("match.group_types[%d]", i), "%q is not a group type; the types are %q and %q", n, selection.GroupConsumer, selection.GroupStreams)
		case slices.Contains(r.groupTypes, gt):
			add(fmt.Sprintf("match.group_types[%d]", i), "duplicate group type %q", n)
		default:
			r.groupTypes = append(r.groupTypes, gt)
		}
	}
}

// compileTaskChoice checks what a rule says for streams groups: a
// streams-only rule needs a task assignor and nothing that only partition
// assignors read; a task assignor needs a rule that can match streams
// groups. The default rule runs the standard task assignor.
func (c *compiler) compileTaskChoice(r *rule, s *ruleSpec, add func(field, format string, args ...any)) {
	if s.Name == DefaultRule {
		if s.TaskAssignor != "" && s.TaskAssignor != standardAssignor {
			add("task_assignor", "the %q rule runs the standard task assignor (%s); write %q or leave it out, and put other choices in earlier rules",
				DefaultRule, task.Ref(task.Sticky()), standardAssignor)
		}
		r.taskAssignor = task.Sticky()
		return
	}
	switch {
	case s.TaskAssignor == "" && r.streamsOnly():
		add("task_assignor", "the rule matches streams groups only (match.group_types) and needs a task assignor, e.g. %q", task.Ref(task.Sticky()))
	case s.TaskAssignor == "":
		return
	case !r.typeMatches(selection.GroupStreams):
		add("task_assignor", "the rule's match.group_types leaves out %q, so no group would run it", selection.GroupStreams)
	default:
		a, msg := lookupTaskRef(s.TaskAssignor)
		if a == nil {
			add("task_assignor", "%s", msg)
		}
		r.taskAssignor = a
	}
	if !r.streamsOnly() {
		return
	}
	if s.Assignor != "" {
		add("assignor", "the rule matches streams groups only (match.group_types), which run task_assignor; a partition assignor would never run")
	}
	if s.Match.Protocols != nil {
		add("match.protocols", "the rule matches streams groups only (match.group_types), which have no protocol name")
	}
	if s.Params != (paramsSpec{}) {
		add("params", "params tune partition assignors; the rule matches streams groups only, whose task assignors take none")
	}
	if s.Shadow != nil {
		add("shadow", "a shadow compares partition assignors; the rule matches streams groups only, whose task assignors have none")
	}
}

// servesTypes lists the group types the rule can apply to: those its
// match allows for which it has an assignor.
func (r *rule) servesTypes(s *ruleSpec) []selection.GroupType {
	var out []selection.GroupType
	if r.typeMatches(selection.GroupConsumer) && s.Assignor != "" {
		out = append(out, selection.GroupConsumer)
	}
	if r.typeMatches(selection.GroupStreams) && r.taskAssignor != nil {
		out = append(out, selection.GroupStreams)
	}
	return out
}

// lookupTaskRef resolves a task assignor as "name@version", or
// "standard" (sticky@1); on failure it returns a message that lists the
// runnable ones.
func lookupTaskRef(ref string) (task.Assignor, string) {
	if ref == standardAssignor {
		return task.Sticky(), ""
	}
	var refs []string
	for _, a := range task.Assignors() {
		refs = append(refs, task.Ref(a))
	}
	runnable := strings.Join(refs, ", ")
	name, ver, ok := strings.Cut(ref, "@")
	n, err := strconv.Atoi(ver)
	if !ok || name == "" || err != nil || !version.MatchString(ver) {
		return nil, fmt.Sprintf("%q is not name@version (e.g. sticky@1); task assignors: %s", ref, runnable)
	}
	a, found := task.Lookup(name, n)
	if !found {
		return nil, fmt.Sprintf("unknown task assignor %q; task assignors: %s", ref, runnable)
	}
	return a, ""
}

// decideTasks finds the first rule that applies to a streams group, and
// its verdict; with explain set it also records why each earlier rule did
// not. The default rule always applies.
func (p *Policy) decideTasks(groupID string, caller selection.Caller, explain bool, view *StepView, now time.Time) (*rule, verdict, []selection.SkippedRule, error) {
	var skipped []selection.SkippedRule
	for _, r := range p.rules {
		step, bp := r.serving(p.revision, view, now)
		v, bucket := otherGroupType, -1
		switch {
		case !r.typeMatches(selection.GroupStreams):
		case r.protocols != nil:
			v = otherProtocol
		default:
			v, bucket = r.admits(groupID, caller, r.taskAssignor != nil, noTaskAssignor, bp)
		}
		if v.applies() {
			return r, v, skipped, nil
		}
		if explain {
			why := r.reason(v, groupID, "", caller, bucket, bp, step)
			if v == otherProtocol {
				why = "a streams group has no protocol name for match.protocols"
			}
			skipped = append(skipped, selection.SkippedRule{Rule: r.name, Reason: why})
		}
	}
	return nil, 0, skipped, fmt.Errorf("policy revision %s: no rule serves streams groups", p.revision)
}

// explainTasks is [Policy.Explain] for a streams group.
func (p *Policy) explainTasks(groupID string, caller selection.Caller, view *StepView) (selection.Explanation, error) {
	now := time.Now()
	r, v, skipped, err := p.decideTasks(groupID, caller, true, view, now)
	if err != nil {
		return selection.Explanation{Revision: p.revision, Bucket: Bucket("", groupID), Skipped: skipped}, err
	}
	bucket := Bucket(r.salt, groupID)
	step, bp := r.serving(p.revision, view, now)
	return selection.Explanation{
		Policy: r.policy, Rule: r.name, Revision: p.revision, Description: r.description, Bucket: bucket,
		Reason: r.reason(v, groupID, "", caller, bucket, bp, step), Assignor: task.Ref(r.taskAssignor), Skipped: skipped,
	}, nil
}

// taskSelection is the TaskSelection of rule r at view and now.
func (p *Policy) taskSelection(r *rule, bound string, view *StepView, now time.Time) selection.TaskSelection {
	sel := selection.TaskSelection{Assignor: r.taskAssignor, Policy: r.policy, Binding: bound}
	sel.RolloutStep, sel.RolloutStarted = r.servedStep(p.revision, view, now)
	return sel
}

// SelectTasks chooses the task assignor for a streams group, as
// [Policy.Select] chooses the partition assignor of a consumer group:
// the bindings, then the first rule that applies.
func (p *Policy) SelectTasks(q selection.Query) (selection.TaskSelection, error) {
	bound, err := p.authorize(q.GroupID, q.Caller)
	if err != nil {
		return selection.TaskSelection{}, err
	}
	r, _, _, err := p.decideTasks(q.GroupID, q.Caller, false, nil, time.Time{})
	if err != nil {
		return selection.TaskSelection{}, err
	}
	return p.taskSelection(r, bound, nil, time.Time{}), nil
}

var _ selection.TaskSelector = (*Source)(nil)

// SelectTasks implements [selection.TaskSelector] for the revision that
// is serving, its staged rules at their agreed steps.
func (s *Source) SelectTasks(ctx context.Context, q selection.Query) (selection.TaskSelection, error) {
	p := s.cur.Load()
	bound, err := p.authorize(q.GroupID, q.Caller)
	if err != nil {
		return selection.TaskSelection{}, err
	}
	view, now := s.steps.Load(), time.Now()
	r, _, _, err := p.decideTasks(q.GroupID, q.Caller, false, view, now)
	if err != nil {
		return selection.TaskSelection{}, err
	}
	s.m.selections.Add(ctx, 1, r.selectedTask...)
	return p.taskSelection(r, bound, view, now), nil
}
