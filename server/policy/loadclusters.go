package policy

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/selection"
)

// MaxLoadClusters bounds the load_clusters of a policy: each is a Kafka
// client and a sampler in every replica.
const MaxLoadClusters = 16

// loadClusterName is what a load cluster may be called: it names the
// cluster in snapshot ids, logs and metrics.
var loadClusterName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// loadClusterSpec is one entry of the top-level load_clusters: a Kafka
// cluster rules read partition load from (params.load_cluster). Secrets
// are never inline: the SASL password is read from a file.
type loadClusterSpec struct {
	Brokers []string      `yaml:"brokers"`
	TLS     *loadTLSSpec  `yaml:"tls"`
	SASL    *loadSASLSpec `yaml:"sasl"`
}

type loadTLSSpec struct {
	CAFile     string `yaml:"ca_file"`
	CertFile   string `yaml:"cert_file"`
	KeyFile    string `yaml:"key_file"`
	ServerName string `yaml:"server_name"`
}

type loadSASLSpec struct {
	Mechanism    string `yaml:"mechanism"`
	Username     string `yaml:"username"`
	PasswordFile string `yaml:"password_file"`
}

// compileLoadClusters validates the file's load_clusters; data is the
// file, for the problems' lines. Problems name the field, e.g.
// "load_clusters.eu.sasl.password_file".
func (c *compiler) compileLoadClusters(specs map[string]loadClusterSpec, data []byte) map[string]kafkaconn.Config {
	if len(specs) == 0 {
		return nil
	}
	lines := loadClusterLines(data)
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make(map[string]kafkaconn.Config, len(specs))
	if len(specs) > MaxLoadClusters {
		c.probs.add(c.lines.top("load_clusters"), "", "load_clusters", "%d clusters; at most %d", len(specs), MaxLoadClusters)
	}
	for _, name := range names {
		s := specs[name]
		base := "load_clusters." + name
		add := func(field, format string, args ...any) {
			full := base
			if field != "" {
				full += "." + field
			}
			// A missing field is reported at its parent's line.
			line := lines[full]
			for p := full; line == 0 && strings.Contains(p, "."); {
				p = p[:strings.LastIndexByte(p, '.')]
				line = lines[p]
			}
			c.probs.add(line, "", full, format, args...)
		}
		if !loadClusterName.MatchString(name) {
			add("", "a cluster name must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit")
		}
		if len(s.Brokers) == 0 {
			add("brokers", "a load cluster needs brokers (host:port)")
		}
		for i, b := range s.Brokers {
			host, port, err := net.SplitHostPort(b)
			if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
				add(fmt.Sprintf("brokers[%d]", i), "%q is not host:port", b)
			}
		}
		conn := kafkaconn.Config{Brokers: strings.Join(s.Brokers, ",")}
		if t := s.TLS; t != nil {
			conn.TLS, conn.CAFile, conn.CertFile, conn.KeyFile, conn.ServerName = true, t.CAFile, t.CertFile, t.KeyFile, t.ServerName
		}
		if a := s.SASL; a != nil {
			conn.SASLMechanism, conn.SASLUser, conn.SASLPasswordFile = a.Mechanism, a.Username, a.PasswordFile
			switch {
			case a.Mechanism == "":
				add("sasl.mechanism", "missing: plain, scram-sha-256 or scram-sha-512")
			case a.PasswordFile == "":
				add("sasl.password_file", "missing: the file holding the password (passwords are never written in the policy)")
			}
		}
		if err := conn.Validate(); err != nil {
			var fe *kafkaconn.FieldError
			if errors.As(err, &fe) {
				add(policyConnField[fe.Key], "%v", fe.Err)
			} else {
				add("", "%v", err)
			}
		}
		out[name] = conn
	}
	return out
}

// policyConnField is the policy's name of a kafkaconn field.
var policyConnField = map[string]string{
	kafkaconn.KeyTLSCA: "tls.ca_file", kafkaconn.KeyTLSCert: "tls.cert_file", kafkaconn.KeyTLSKey: "tls.key_file",
	kafkaconn.KeySASLMechanism: "sasl.mechanism", kafkaconn.KeySASLUser: "sasl.username", kafkaconn.KeySASLPasswordFile: "sasl.password_file",
}

// checkLoadCluster checks params.load_cluster (a rule's or a shadow's):
// it needs load_source kafka and a cluster of load_clusters.
func (c *compiler) checkLoadCluster(p selection.PolicyParams, field string, add func(field, format string, args ...any)) {
	if p.LoadCluster == "" {
		return
	}
	if p.LoadSource != LoadSourceKafka {
		add(field+".load_cluster", "needs load_source: %s", LoadSourceKafka)
	}
	if _, ok := c.clusters[p.LoadCluster]; !ok {
		add(field+".load_cluster", "%q is not in load_clusters", p.LoadCluster)
	}
}

// loadClusterLines maps "load_clusters.NAME..." paths to their lines.
func loadClusterLines(data []byte) ruleLines {
	out := ruleLines{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "load_clusters" {
			out["load_clusters"] = k.Line
			walkLines(root.Content[i+1], "load_clusters", out)
		}
	}
	return out
}

// LoadClusters is the policy's load_clusters: each cluster's connection,
// by name.
func (p *Policy) LoadClusters() map[string]kafkaconn.Config { return maps.Clone(p.clusters) }
