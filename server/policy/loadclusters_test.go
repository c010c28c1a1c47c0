package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// A rule that names a load cluster selects that cluster's brokers and
// connection; the other rule reads the server's own (nil).
func TestLoadClusterSelected(t *testing.T) {
	p := mustParse(t, `version: 1
load_clusters:
  eu:
    brokers: [eu-1:9092, eu-2:9092]
    tls: {ca_file: ca.pem, server_name: kafka.eu}
    sasl: {mechanism: scram-sha-512, username: assignd, password_file: eu.pass}
rules:
  - name: eu
    match: {group_prefixes: [eu-]}
    assignor: load-sticky@1
    params: {load_source: kafka, load_cluster: eu}
  - name: own
    match: {group_prefixes: [own-]}
    assignor: load-sticky@1
    params: {load_source: kafka}
`)
	sel, err := p.Select(selection.Query{GroupID: "eu-1", ProtocolName: assign.NameCooperativeSticky})
	if err != nil {
		t.Fatal(err)
	}
	if sel.LoadCluster == nil || sel.LoadCluster.Name != "eu" {
		t.Fatalf("cluster %+v, want eu", sel.LoadCluster)
	}
	c := p.LoadClusters()["eu"]
	if c.Brokers != "eu-1:9092,eu-2:9092" || !c.TLS || c.CAFile != "ca.pem" ||
		c.ServerName != "kafka.eu" || c.SASLMechanism != "scram-sha-512" || c.SASLUser != "assignd" ||
		c.SASLPasswordFile != "eu.pass" || c.SASLPassword != "" {
		t.Fatalf("cluster eu %+v", c)
	}
	sel, err = p.Select(selection.Query{GroupID: "own-1", ProtocolName: assign.NameCooperativeSticky})
	if err != nil {
		t.Fatal(err)
	}
	if sel.LoadCluster != nil || !sel.KafkaLoad {
		t.Fatalf("own: cluster %+v, KafkaLoad %t", sel.LoadCluster, sel.KafkaLoad)
	}
	e, err := p.Explain("eu-1", assign.NameCooperativeSticky, selection.Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Params.LoadCluster != "eu" || !strings.Contains(e.Params.String(), "load_cluster=eu") {
		t.Fatalf("explained %s", e.Params)
	}
	if cs := p.LoadClusters(); len(cs) != 1 {
		t.Fatalf("LoadClusters %+v, want eu alone", cs)
	}
	if cs := mustParse(t, "version: 1\n").LoadClusters(); len(cs) != 0 {
		t.Fatalf("a policy without load_clusters lists %+v", cs)
	}
}

// Every problem of load_clusters and params.load_cluster is reported,
// naming the field and its line.
func TestLoadClusterValidation(t *testing.T) {
	rule := func(params string) string {
		return "rules:\n  - name: r\n    assignor: load-sticky@1\n    params: " + params + "\n"
	}
	for _, tc := range []struct {
		name, yaml string
		field      string // the Error's Field
		msg        string // part of its message
		line       int
	}{
		{"no brokers", "load_clusters:\n  eu: {tls: {ca_file: ca.pem}}\n", "load_clusters.eu.brokers", "needs brokers", 3},
		{"broker without a port", "load_clusters:\n  eu:\n    brokers: [eu-1]\n", "load_clusters.eu.brokers[0]", `"eu-1" is not host:port`, 4},
		{"bad port", "load_clusters:\n  eu:\n    brokers: [eu-1:0]\n", "load_clusters.eu.brokers[0]", "not host:port", 4},
		{"bad name", "load_clusters:\n  'e u':\n    brokers: [a:1]\n", "load_clusters.e u", "cluster name", 3},
		{"cert without key", "load_clusters:\n  eu:\n    brokers: [a:1]\n    tls: {cert_file: c.pem}\n", "load_clusters.eu.tls.key_file", "needs its key", 5},
		{"key without cert", "load_clusters:\n  eu:\n    brokers: [a:1]\n    tls:\n      key_file: k.pem\n", "load_clusters.eu.tls.cert_file", "needs its certificate", 5},
		{"unknown mechanism", "load_clusters:\n  eu:\n    brokers: [a:1]\n    sasl: {mechanism: gssapi, username: u, password_file: p}\n", "load_clusters.eu.sasl.mechanism", `"gssapi"`, 5},
		{"SASL without a mechanism", "load_clusters:\n  eu:\n    brokers: [a:1]\n    sasl: {username: u, password_file: p}\n", "load_clusters.eu.sasl.mechanism", "missing", 5},
		{"SASL without a user", "load_clusters:\n  eu:\n    brokers: [a:1]\n    sasl: {mechanism: plain, password_file: p}\n", "load_clusters.eu.sasl.username", "needs a user", 5},
		{"SASL without a password file", "load_clusters:\n  eu:\n    brokers: [a:1]\n    sasl: {mechanism: plain, username: u}\n", "load_clusters.eu.sasl.password_file", "never written in the policy", 5},
		{"inline password", "load_clusters:\n  eu:\n    brokers: [a:1]\n    sasl: {mechanism: plain, username: u, password: secret}\n", "", "no inline password", 5},
		{"unknown cluster", rule("{load_source: kafka, load_cluster: us}"), "params.load_cluster", `"us" is not in load_clusters`, 5},
		{"cluster without the kafka source", "load_clusters:\n  eu: {brokers: [a:1]}\n" + rule("{load_cluster: eu}"), "params.load_cluster", "needs load_source: kafka", 7},
		{"shadow's unknown cluster", "rules:\n  - name: r\n    assignor: load-sticky@1\n    shadow: {assignor: cooperative-sticky@1, params: {load_source: kafka, load_cluster: us}}\n",
			"shadow.params.load_cluster", "not in load_clusters", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Parse("p.yaml", []byte("version: 1\n"+tc.yaml))
			if err == nil {
				t.Fatal("parsed; want an error")
			}
			var found bool
			for _, e := range unwrapAll(err) {
				var pe *policy.Error
				if errors.As(e, &pe) && pe.Field == tc.field && strings.Contains(pe.Msg, tc.msg) && (tc.line == 0 || pe.Line == tc.line) {
					found = true
				}
			}
			if !found {
				t.Fatalf("error %v; want field %q line %d saying %q", err, tc.field, tc.line, tc.msg)
			}
		})
	}
}

// unwrapAll lists the errors errors.Join put together.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// The number of load clusters is capped.
func TestLoadClustersCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nload_clusters:\n")
	for i := range policy.MaxLoadClusters + 1 {
		b.WriteString("  c" + string(rune('a'+i)) + ": {brokers: [a:1]}\n")
	}
	if _, err := policy.Parse("p.yaml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Fatalf("error %v, want the cap", err)
	}
}
