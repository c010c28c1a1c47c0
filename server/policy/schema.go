package policy

// The YAML schema of a policy file, decoded strictly (unknown fields are
// errors). The package documentation describes it for operators; these
// types only mirror it. Pointers distinguish "absent" from a zero value
// where the default is not the zero value.

// SchemaVersion is the only value the "version" field accepts. A future,
// incompatible schema gets a new number so that an old assignd refuses a
// file it would misread instead of half-applying it.
const SchemaVersion = 1

type fileSpec struct {
	Version  *int          `yaml:"version"`
	Bindings []bindingSpec `yaml:"bindings"`
	Rules    []ruleSpec    `yaml:"rules"`
	// LoadClusters: see loadclusters.go.
	LoadClusters map[string]loadClusterSpec `yaml:"load_clusters"`
}

// bindingSpec binds groups to the callers allowed to request them.
type bindingSpec struct {
	Name          string       `yaml:"name"`
	Groups        []string     `yaml:"groups"`
	GroupPrefixes []string     `yaml:"group_prefixes"`
	GroupGlobs    []string     `yaml:"group_globs"`
	Callers       []callerSpec `yaml:"callers"`
}

type ruleSpec struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Match       matchSpec    `yaml:"match"`
	Rollout     *rolloutSpec `yaml:"rollout"`
	Assignor    string       `yaml:"assignor"`
	// TaskAssignor: see tasks.go.
	TaskAssignor string      `yaml:"task_assignor"`
	Params       paramsSpec  `yaml:"params"`
	Shadow       *shadowSpec `yaml:"shadow"`
}

type matchSpec struct {
	Groups        []string     `yaml:"groups"`
	GroupPrefixes []string     `yaml:"group_prefixes"`
	GroupGlobs    []string     `yaml:"group_globs"`
	Protocols     []string     `yaml:"protocols"`
	Callers       []callerSpec `yaml:"callers"`
	GroupTypes    []string     `yaml:"group_types"`
}

type callerSpec struct {
	Subject    string `yaml:"subject"`
	CommonName string `yaml:"common_name"`
}

type rolloutSpec struct {
	Percent *float64   `yaml:"percent"`
	Salt    string     `yaml:"salt"`
	Include []string   `yaml:"include"`
	Exclude []string   `yaml:"exclude"`
	Steps   []stepSpec `yaml:"steps"`
	Gate    *gateSpec  `yaml:"gate"`
}

// stepSpec is one step of a staged rollout; hold is a Go duration ("30s",
// "6h").
type stepSpec struct {
	Percent *float64 `yaml:"percent"`
	Hold    string   `yaml:"hold"`
}

// gateSpec is what a staged rollout checks before each step advances.
type gateSpec struct {
	MinGroups                *int     `yaml:"min_groups"`
	MaxMovedRatio            *float64 `yaml:"max_moved_ratio"`
	MaxWithheldRatio         *float64 `yaml:"max_withheld_ratio"`
	MaxFollowupsPerRebalance *int     `yaml:"max_followups_per_rebalance"`
	MaxImbalance             *int     `yaml:"max_imbalance"`
	OnFail                   string   `yaml:"on_fail"`
}

type paramsSpec struct {
	RackAware *bool `yaml:"rack_aware"`
	MaxMoves  *int  `yaml:"max_moves_per_rebalance"`
	Freeze    *bool `yaml:"freeze"`

	KeepMisalignedRacks *bool    `yaml:"keep_misaligned_racks"`
	LoadTolerance       *float64 `yaml:"load_tolerance"`
	LoadHysteresis      *float64 `yaml:"load_hysteresis"`
	MaxCountSkew        *int     `yaml:"max_count_skew"`
	LoadSource          string   `yaml:"load_source"`
	LoadCluster         string   `yaml:"load_cluster"`
}

type shadowSpec struct {
	Assignor string     `yaml:"assignor"`
	Params   paramsSpec `yaml:"params"`
}

// sectionNames turns the Go type names that the YAML decoder puts into
// unknown-field errors into the words an operator knows.
var sectionNames = map[string]string{
	"policy.fileSpec":    "the top level (a mapping of version and rules)",
	"policy.ruleSpec":    "a rule",
	"policy.bindingSpec": "a binding",
	"policy.matchSpec":   "match",
	"policy.callerSpec":  "a caller",
	"policy.rolloutSpec": "rollout",
	"policy.stepSpec":    "a rollout step",
	"policy.gateSpec":    "rollout.gate",
	"policy.paramsSpec":  "params",
	"policy.shadowSpec":  "shadow",

	"policy.loadClusterSpec": "a load cluster (brokers, tls, sasl)",
	"policy.loadTLSSpec":     "a load cluster's tls (ca_file, cert_file, key_file, server_name)",
	"policy.loadSASLSpec":    "a load cluster's sasl (mechanism, username, password_file; no inline password)",
}
