package policy

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/selection"
)

// ruleName is what a rule may be called: it appears in "rule/revision"
// (hence no '/') and as a metric label.
var ruleName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// version is an assignor version as written after '@': no sign, no
// leading zero.
var version = regexp.MustCompile(`^[1-9][0-9]{0,8}$`)

// compiler turns decoded rule specs into rules, recording every problem.
type compiler struct {
	probs    *problems
	lines    lineIndex
	revision string
	clusters map[string]kafkaconn.Config // load_clusters
}

// compileRules validates and compiles specs in order. The caller has
// already appended the built-in default rule when the file has none.
func (c *compiler) compileRules(specs []ruleSpec, fromFile int) []*rule {
	rules := make([]*rule, 0, len(specs))
	seen := make(map[string]int)
	// catchAll is, per group type, the first rule that applies to every
	// group of that type.
	var catchAll [2]string
	for i := range specs {
		s := &specs[i]
		at := c.lines.rule(i)
		label := s.Name
		if label == "" {
			label = fmt.Sprintf("rules[%d]", i)
		}
		if i >= fromFile {
			// The built-in default rule is valid by construction; it is
			// compiled to share the file's revision, not checked again,
			// and a misplaced "default" in the file is reported there.
			rules = append(rules, c.compileRule(s, label, ruleLines{}))
			continue
		}
		switch {
		case s.Name == "":
			c.probs.add(at.line(""), label, "name", "a rule needs a name (it is reported in every response as rule/revision)")
		case !ruleName.MatchString(s.Name):
			c.probs.add(at.line("name"), label, "name", "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit")
		default:
			if prev, dup := seen[s.Name]; dup {
				c.probs.add(at.line("name"), label, "name", "duplicate rule name (also rules[%d])", prev)
			}
			seen[s.Name] = i
		}
		if s.Name == DefaultRule && i != fromFile-1 {
			c.probs.add(at.line("name"), label, "name", "the %q rule must be the last rule", DefaultRule)
		}
		r := c.compileRule(s, label, at)
		rules = append(rules, r)
		if by, ok := unreachable(r.servesTypes(s), catchAll); ok {
			c.probs.add(at.line(""), label, "", "unreachable: rule %q before it applies to every group, protocol name and caller", by)
		}
		// The spec, not the compiled rule, says whether a match was
		// written: a clause whose entries were all invalid is not absent.
		for _, gt := range r.servesTypes(s) {
			if catchAll[gt] == "" && !s.Match.present() && r.catchesAll(gt) {
				catchAll[gt] = r.name
			}
		}
	}
	return rules
}

// catchesAll reports whether the rule applies to every query of group
// type gt.
func (r *rule) catchesAll(gt selection.GroupType) bool {
	has := r.assignor != nil && len(r.protocols) == 0
	if gt == selection.GroupStreams {
		has = r.taskAssignor != nil
	}
	return has && r.typeMatches(gt) && !r.hasGroupClause() && len(r.callers) == 0 &&
		(!r.rollout || (r.basisPoints == Buckets && len(r.exclude) == 0 && r.steps == nil))
}

// unreachable reports whether earlier rules catch every group of every
// type a rule serves, and names the first of them.
func unreachable(serves []selection.GroupType, catchAll [2]string) (string, bool) {
	by := ""
	for _, gt := range serves {
		if catchAll[gt] == "" {
			return "", false
		}
		if by == "" {
			by = catchAll[gt]
		}
	}
	return by, by != ""
}

func (c *compiler) compileRule(s *ruleSpec, label string, at ruleLines) *rule {
	r := &rule{name: s.Name, description: s.Description, policy: s.Name + "/" + c.revision}
	add := func(field, format string, args ...any) {
		c.probs.add(at.line(field), label, field, format, args...)
	}
	c.compileMatch(r, &s.Match, add)
	if s.Name == DefaultRule {
		if s.Match.present() {
			add("match", "the %q rule applies to every group; it cannot have a match", DefaultRule)
		}
		if s.Rollout != nil {
			add("rollout", "the %q rule applies to every group; it cannot have a rollout", DefaultRule)
		}
		if s.Assignor != "" && s.Assignor != standardAssignor {
			add("assignor", "the %q rule runs the standard assignor of each protocol name; write %q or leave it out, and put other choices in earlier rules", DefaultRule, standardAssignor)
		}
		s.Assignor = standardAssignor
	}
	if s.Rollout != nil {
		c.compileRollout(r, s.Rollout, add)
	}

	c.compileTaskChoice(r, s, add)
	switch {
	case s.Assignor == "" && !r.typeMatches(selection.GroupConsumer):
		// A streams-only rule: compileTaskChoice checked it.
	case s.Assignor == "":
		add("assignor", "a rule needs an assignor, e.g. %q, or %q for each protocol name's standard assignor", "cooperative-sticky@1", standardAssignor)
	case s.Assignor == standardAssignor:
		for _, n := range r.protocols {
			if !isStandard(n) {
				add("assignor", "%q: protocol name %q has no standard assignor; name one as name@version", standardAssignor, n)
			}
		}
	case !r.typeMatches(selection.GroupConsumer):
		// compileTaskChoice refused it.
	default:
		a, msg := lookupRef(s.Assignor)
		if a == nil {
			add("assignor", "%s", msg)
			break
		}
		r.assignor = a
		if msg := protocolProblem(a, r.protocols); msg != "" {
			add("assignor", "%s", msg)
		}
	}
	r.params = c.compileParams(s.Params, "params", add)
	if _, ok := c.clusters[r.params.LoadCluster]; ok {
		r.loadCluster = &selection.LoadCluster{Name: r.params.LoadCluster}
	}
	r.options = r.params.Options()

	if s.Shadow != nil {
		r.shadow = c.compileShadow(r, s, add)
	}
	r.setAttrs(c.revision)
	if s.Rollout != nil {
		c.checkListed(r, "rollout.include", "including", s.Rollout.Include, add)
		c.checkListed(r, "rollout.exclude", "excluding", s.Rollout.Exclude, add)
	}
	return r
}

// checkListed rejects include/exclude entries the rule's group clause
// cannot match: they would silently do nothing, and are most likely typos.
func (c *compiler) checkListed(r *rule, field, verb string, groups []string, add func(field, format string, args ...any)) {
	for i, g := range groups {
		if !r.groupMatches(g) {
			add(fmt.Sprintf("%s[%d]", field, i), "group %q does not match the rule's match clause, so %s it has no effect", g, verb)
		}
	}
}

func (m *matchSpec) present() bool {
	return m.Groups != nil || m.GroupPrefixes != nil || m.GroupGlobs != nil || m.Protocols != nil || m.Callers != nil || m.GroupTypes != nil
}

func (c *compiler) compileMatch(r *rule, m *matchSpec, add func(field, format string, args ...any)) {
	// An empty list would read as "none" but, as an absent clause, match
	// everything: a templated policy rendering an empty list must not
	// silently widen a rule to every group.
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"groups", m.Groups != nil && len(m.Groups) == 0},
		{"group_prefixes", m.GroupPrefixes != nil && len(m.GroupPrefixes) == 0},
		{"group_globs", m.GroupGlobs != nil && len(m.GroupGlobs) == 0},
		{"protocols", m.Protocols != nil && len(m.Protocols) == 0},
		{"callers", m.Callers != nil && len(m.Callers) == 0},
	} {
		if f.empty {
			add("match."+f.name, "an empty list would match nothing, yet an absent clause matches everything; leave match.%s out or list something", f.name)
		}
	}
	if len(m.Groups) > 0 {
		r.groups = make(map[string]struct{}, len(m.Groups))
		for i, g := range m.Groups {
			if _, dup := r.groups[g]; dup {
				add(fmt.Sprintf("match.groups[%d]", i), "duplicate group %q", g)
			}
			r.groups[g] = struct{}{}
		}
	}
	for i, p := range m.GroupPrefixes {
		if p == "" {
			add(fmt.Sprintf("match.group_prefixes[%d]", i), "an empty prefix matches every group; leave group_prefixes out instead")
			continue
		}
		r.prefixes = append(r.prefixes, p)
	}
	for i, g := range m.GroupGlobs {
		re, err := compileGlob(g)
		if err != nil {
			add(fmt.Sprintf("match.group_globs[%d]", i), "bad glob %q: %v", g, err)
			continue
		}
		r.globs = append(r.globs, re)
	}
	for i, p := range m.Protocols {
		field := fmt.Sprintf("match.protocols[%d]", i)
		switch {
		case p == "":
			add(field, "empty protocol name")
		case contains(r.protocols, p):
			add(field, "duplicate protocol name %q", p)
		default:
			r.protocols = append(r.protocols, p)
		}
	}
	for i, e := range m.Callers {
		if e.Subject == "" && e.CommonName == "" {
			add(fmt.Sprintf("match.callers[%d]", i), "a caller entry needs subject or common_name")
			continue
		}
		r.callers = append(r.callers, e)
	}
	c.compileGroupTypes(r, m.GroupTypes, add)
}

func (c *compiler) compileRollout(r *rule, s *rolloutSpec, add func(field, format string, args ...any)) {
	r.rollout = true
	r.salt = s.Salt
	switch {
	case s.Steps != nil || s.Gate != nil:
		c.compileSteps(r, s, add)
	case s.Percent == nil:
		add("rollout", "a rollout needs percent (0 to 100; 0 with include for named groups only) or steps")
	case math.IsNaN(*s.Percent) || *s.Percent < 0 || *s.Percent > 100:
		add("rollout.percent", "%v is outside 0..100", *s.Percent)
	default:
		bp := math.Round(*s.Percent * 100)
		if math.Abs(*s.Percent*100-bp) > 1e-6 {
			add("rollout.percent", "%v has more than two decimals; buckets are hundredths of a percent", *s.Percent)
		}
		r.basisPoints = int(bp)
	}
	r.include = groupSet(s.Include, "rollout.include", add)
	r.exclude = groupSet(s.Exclude, "rollout.exclude", add)
	for i, g := range s.Exclude {
		if _, both := r.include[g]; both {
			add(fmt.Sprintf("rollout.exclude[%d]", i), "group %q is in both include and exclude", g)
		}
	}
}

func groupSet(list []string, field string, add func(field, format string, args ...any)) map[string]struct{} {
	if len(list) == 0 {
		return nil
	}
	set := make(map[string]struct{}, len(list))
	for i, g := range list {
		if _, dup := set[g]; dup {
			add(fmt.Sprintf("%s[%d]", field, i), "duplicate group %q", g)
		}
		set[g] = struct{}{}
	}
	return set
}

// LoadSourceKafka is params.load_source for the server's Kafka load source.
const LoadSourceKafka = "kafka"

// maxLoadFraction is the largest load_tolerance and load_hysteresis a
// policy accepts: beyond ten times the bound, a load-aware assignor would
// never move anything.
const maxLoadFraction = 10.0

func (c *compiler) compileParams(s paramsSpec, field string, add func(field, format string, args ...any)) selection.PolicyParams {
	if s.MaxMoves != nil && *s.MaxMoves < 0 {
		add(field+".max_moves_per_rebalance", "%d is negative; 0 means no cap", *s.MaxMoves)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"load_tolerance", s.LoadTolerance}, {"load_hysteresis", s.LoadHysteresis}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= maxLoadFraction) {
			add(field+"."+f.name, "%v is not a fraction from 0 to %v (0.1 is 10%%)", *f.v, maxLoadFraction)
		}
	}
	if s.LoadSource != "" && s.LoadSource != LoadSourceKafka {
		add(field+".load_source", "%q is not a load source; the one there is: %q", s.LoadSource, LoadSourceKafka)
	}
	if s.MaxCountSkew != nil && *s.MaxCountSkew < 0 {
		add(field+".max_count_skew", "%d is negative; 0 means the even share", *s.MaxCountSkew)
	}
	p := resolveParams(s)
	p.MaxMovesPerRebalance = max(p.MaxMovesPerRebalance, 0)
	c.checkLoadCluster(p, field, add)
	return p
}

func (c *compiler) compileShadow(r *rule, s *ruleSpec, add func(field, format string, args ...any)) *shadowChoice {
	sh := s.Shadow
	if sh.Assignor == "" || sh.Assignor == standardAssignor {
		add("shadow.assignor", "a shadow needs an assignor as name@version")
		return nil
	}
	a, msg := lookupRef(sh.Assignor)
	if a == nil {
		add("shadow.assignor", "%s", msg)
		return nil
	}
	names := r.protocols
	if r.assignor == nil && len(names) == 0 {
		names = standardNames // "standard" serves only the standard names
	}
	if msg := protocolProblem(a, names); msg != "" {
		add("shadow.assignor", "%s", msg)
	}
	params := c.compileParams(sh.Params, "shadow.params", add)
	if r.assignor != nil && keyOf(r.assignor) == keyOf(a) && r.params == params {
		add("shadow", "the shadow is the rule's own assignor with the same params; it would compare a run with itself")
	}
	return &shadowChoice{assignor: a, params: params, options: params.Options()}
}

// lookupRef resolves "name@version"; on failure it returns a message that
// lists what is runnable.
func lookupRef(ref string) (assign.Assignor, string) {
	name, ver, ok := strings.Cut(ref, "@")
	n, err := strconv.Atoi(ver)
	if !ok || name == "" || err != nil || !version.MatchString(ver) {
		return nil, fmt.Sprintf("%q is not name@version (e.g. cooperative-sticky@1); runnable: %s", ref, runnable())
	}
	a, found := assign.Lookup(name, n)
	if !found {
		return nil, fmt.Sprintf("unknown assignor %q; runnable: %s", ref, runnable())
	}
	return a, ""
}

func runnable() string {
	var refs []string
	for _, a := range assign.Assignors() {
		refs = append(refs, assign.Ref(a))
	}
	return strings.Join(refs, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
