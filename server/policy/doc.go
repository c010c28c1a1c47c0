// Package policy decides which assignor runs for each consumer group, so
// that assignment can be changed safely in one place: versioned assignors,
// staged rollouts by stable hash, shadow evaluation of a candidate beside
// what runs, and hot reload of the policy file. [Source] implements both
// sides of the server's seam, [selection.Selector] for Assign and
// [selection.Explainer] for ExplainPolicy; cmd/assignd wires it in. The
// package imports only the seam, not the service, so that `assignctl
// policy check` validates a file without compiling the server.
//
// # The policy file
//
// YAML, one document, decoded strictly: an unknown field is an error with
// its line. Example (examples/policy.yaml has a commented one):
//
//	version: 1                    # schema version, required; only 1 exists
//	bindings:                     # optional: the callers allowed per group
//	  - name: payments            # required, unique; as a rule's name
//	    groups: [orders]          # groups, group_prefixes, group_globs as in
//	    group_prefixes: [payments-]    # match; at least one of them
//	    callers:                  # required; as match.callers
//	      - common_name: payments-leader
//	rules:                        # tried in order; the first that applies wins
//	  - name: payments-v2         # required, unique; [A-Za-z0-9._-], up to 63
//	    description: per-topic balance for payments   # optional, shown by explain
//	    match:                    # every clause given must match (AND);
//	                              # any entry of a clause may (OR); no match = all
//	      groups: [orders]                  # exact group ids
//	      group_prefixes: [payments-]       # group id prefixes
//	      group_globs: ["team-*/ingest"]    # globs: * ? [a-z] [!a-z] \x; * crosses '/'
//	      protocols: [cooperative-sticky]   # the group's protocol names
//	      callers:                          # the mTLS client; each field given must equal
//	        - common_name: leader-a
//	        - subject: "CN=leader-b,O=payments"
//	      group_types: [consumer]           # consumer (Assign), streams (AssignTasks); absent: both
//	    rollout:                  # optional: apply to some of the matching groups
//	      percent: 10             # 0..100, in steps of 0.01; required in a rollout without steps
//	      salt: ""                # optional; see Bucket
//	      include: [payments-critical]   # always in (if the rule matches them)
//	      exclude: [payments-legacy]     # never in; wins over include and percent
//	      # instead of percent: a staged rollout (server/rollout drives it)
//	      # steps: [{percent: 1, hold: 1h}, {percent: 10, hold: 6h}, {percent: 100}]
//	      # gate: {min_groups: 5, max_moved_ratio: 0.05, max_withheld_ratio: 0.2,
//	      #        max_followups_per_rebalance: 1, max_imbalance: 1, on_fail: halt}  # or rollback
//	    assignor: cooperative-sticky@2   # name@version, or "standard"; consumer groups
//	    task_assignor: sticky@1   # streams groups: a task assignor, name@version or "standard"
//	    params:                   # optional
//	      rack_aware: true              # default true
//	      max_moves_per_rebalance: 100  # default 0 = no cap
//	      freeze: false                 # default false; wins over the cap
//	      keep_misaligned_racks: false  # default false: bring partitions home to their racks
//	      load_tolerance: 0.1           # load-sticky@1: default 0.10 over the bound
//	      load_hysteresis: 0.05         # load-sticky@1: default 0.05 of the bound
//	      max_count_skew: 0             # load-sticky@1: default 0 = the even share
//	      load_source: kafka            # default "": weights only from the request
//	      load_cluster: eu              # with load_source kafka: a load_clusters name; default "": --load-brokers
//	    shadow:                   # optional: evaluate, compare, never return
//	      assignor: cooperative-sticky@2
//	      params: {max_moves_per_rebalance: 0}
//	  - name: default             # optional; if absent the built-in one is appended
//	    params: {rack_aware: true}
//	    shadow: {assignor: cooperative-sticky@2}
//	load_clusters:                # optional, at most 16: clusters rules read load from
//	  eu:                         # [A-Za-z0-9._-], up to 63
//	    brokers: [kafka-eu-1:9093]          # required, host:port
//	    tls: {ca_file: ca.pem, cert_file: c.pem, key_file: k.pem, server_name: kafka.eu}   # optional
//	    sasl: {mechanism: scram-sha-512, username: assignd, password_file: eu.pass}       # optional
//
// A Kafka Streams group (AssignTasks) is served by the first rule whose
// match.group_types lets it and that names a task_assignor, its group id
// being the caller's label ([Policy.SelectTasks]); docs/policy.md
// ("Streams groups") says what such a rule may and may not say.
//
// A rule applies to a query (group id, protocol name, caller) when its
// match clauses match and, if it has a rollout, the group is not excluded
// and is either included or has a Bucket below percent×100 (for a staged
// rollout, the percent of the step the replicas agreed, see [StepView]; a
// rolled-back one applies to no group). A rule that
// does not apply falls through to the next one. An include or exclude entry
// that the rule's group clause cannot match is rejected as a likely typo.
//
// "standard" selects, for each of the four standard protocol names, the
// assignor of that name at its standard version (cooperative-sticky@1,
// range@1, roundrobin@1, sticky@1); for other names the rule does not
// apply. Other assignors are named with an explicit version, so that a
// rollback is an edit of this file.
//
// Every policy ends with the rule "default", which applies to every group
// and runs "standard". A file may write it, as its last rule, with params
// or a shadow but without match, rollout or another assignor; otherwise the
// built-in one (default.yaml, embedded) is appended. A protocol name no rule
// answers is unknown (the server's INVALID_ARGUMENT on protocol_name).
// Without a file assignd serves Default, which is that rule alone.
//
// # Bindings
//
// A binding ties groups to the mTLS identities allowed to request them, so
// that a leader of one team cannot write another team's history. The first
// binding whose groups match a group id decides, and the caller must match
// one of its callers; otherwise Select returns a [CallerError] (wrapping
// [selection.ErrCallerNotAllowed]: PERMISSION_DENIED), also for an
// unauthenticated caller. A group no binding covers is open to every
// caller. Selection.Binding names the binding that allowed the call.
// ExplainPolicy does not check bindings: it says what the rules do.
//
// # Revision
//
// A policy's revision is the first 12 hex digits of the SHA-256 of the
// file's bytes: `sha256sum policy.yaml | cut -c1-12`. It is not written in
// the file, so it can neither be forgotten nor reused for different
// content; replicas with the same file report the same revision. Each
// AssignResponse carries policy = "rule/revision", and the policy's
// metrics are labelled by rule and revision.
//
// # Rebalance protocols and safety
//
// The protocol name fixes what the group's clients expect: "range",
// "roundrobin" and "sticky" clients run EAGER; "cooperative-sticky" clients
// run COOPERATIVE, or EAGER during the first bounce of the KIP-429 upgrade.
// Parse rejects a rule whose assignor (or shadow) does not support every
// protocol its protocol names imply; a rule without match.protocols (or
// naming a non-standard protocol) must pick an assignor that supports both.
// So a policy can never put an eager-only assignor behind a cooperative
// group, and under COOPERATIVE the engine always applies the KIP-429
// post-pass, whatever the assignor. A request that leaves
// rebalance_protocol unspecified runs its protocol name's default, not the
// assignor's: Select returns it as selection.Selection.Protocol, and
// Explanation.Protocol reports it.
//
// # Shadow evaluation
//
// A rule's shadow is computed on the same group, under the protocol the
// assignor ran, after the response has been computed, in the background:
// at most WithShadowConcurrency shadows run at once (others are skipped),
// and groups above WithShadowMaxPartitions are skipped. Each comparison is
// one log line and the metrics assignd.policy.shadow.* (moved partitions,
// imbalance, follow-ups and engine time per side, runs by outcome).
//
// # Hot reload
//
// See Watch: a changed file is validated completely before it replaces the
// serving revision; an invalid one is logged, counted and flagged, and the
// last good revision keeps serving.
package policy
