package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/testbed/doctable"
)

func TestHistoryFlags(t *testing.T) {
	tests := []configCase[historyConfig]{
		{"defaults: in memory, documented topic", nil, nil, func(c historyConfig) bool {
			return !c.shared() && c.topic == bus.DefaultTopic && c.retention == bus.DefaultRetention &&
				c.inputs == history.DefaultInputsPerGroup && c.inputBytes == history.DefaultInputBytes && c.replicationFactor == -1 && c.replica != ""
		}, ""},
		{"shared from the environment", nil, map[string]string{"ASSIGND_HISTORY_BROKERS": "k1:9092,k2:9092", "ASSIGND_HISTORY_SASL_MECHANISM": "scram-sha-512",
			"ASSIGND_HISTORY_SASL_USER": "assignd", "ASSIGND_HISTORY_SASL_PASSWORD": "secret", "ASSIGND_HISTORY_TLS_CA": "ca.pem"},
			func(c historyConfig) bool {
				m, err := c.kafka.conn.Mechanism()
				return c.kafka.conn.Brokers == "k1:9092,k2:9092" && err == nil && m.Name() == "SCRAM-SHA-512" && c.kafka.conn.CAFile == "ca.pem"
			}, ""},
		{"thresholds", []string{"--history-thresholds", "rebalances-per-hour=30, unowned=10s,storm-window=1m"}, nil, func(c historyConfig) bool {
			th, err := parseThresholds(c.thresholds)
			return err == nil && th.RebalancesPerHour == 30 && th.Unowned == 10*time.Second && th.StormWindow == time.Minute && th.Imbalance == 0
		}, ""},
		{"unknown threshold", []string{"--history-thresholds", "storms=3"}, nil, nil, `"storms=3": unknown key`},
		{"threshold not a number", []string{"--history-thresholds", "imbalance=two"}, nil, nil, "imbalance=two"},
		{"threshold of zero", []string{"--history-thresholds", "unowned=0s"}, nil, nil, "must be positive"},
		{"unknown SASL mechanism", []string{"--history-sasl-mechanism", "gssapi", "--history-sasl-user", "u"}, nil, nil, "want plain, scram-sha-256 or scram-sha-512"},
		{"SASL without a user", []string{"--history-sasl-mechanism", "plain"}, nil, nil, "--history-sasl-user: missing"},
		{"client cert without key", []string{"--history-tls-cert", "c.pem"}, nil, nil, "--history-tls-key: missing"},
		{"no buffer", []string{"--history-buffer", "0"}, nil, nil, "--history-buffer"},
		// Shared without a history, the replicas would each drive their
		// staged rollouts alone.
		{"shared without decisions", []string{"--history-brokers", "k1:9092", "--history-decisions", "0"}, nil, nil, "needs --history-decisions and --history-groups above 0"},
		{"shared without groups", []string{"--history-brokers", "k1:9092", "--history-groups", "0"}, nil, nil, "needs --history-decisions and --history-groups above 0"},
	}
	runConfigCases(t, tests, func(c config) historyConfig { return c.history })
}

// documentedThreshold finds a threshold and its default in the signal
// table: `key` (default).
var documentedThreshold = regexp.MustCompile("`([a-z-]+)` \\(([^)]+)\\)")

// TestDocsShowEveryThreshold checks docs/observatory.md's signal table
// against [thresholdsOf], both ways: every key of --history-thresholds
// stands in it with its default, and every threshold it shows is a key.
func TestDocsShowEveryThreshold(t *testing.T) {
	page := filepath.Join("..", "..", "docs", "observatory.md")
	rows, err := doctable.Table(page, "Signals")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, row := range rows {
		for _, m := range documentedThreshold.FindAllStringSubmatch(row[1], -1) {
			documented[m[1]] = m[2]
		}
	}
	d := history.DefaultThresholds()
	for _, th := range thresholdsOf(&d) {
		var want string
		if th.n != nil {
			want = strconv.Itoa(*th.n)
		} else {
			want = docDuration(*th.d)
		}
		if got, ok := documented[th.key]; !ok {
			t.Errorf("%s: no threshold `%s` (%s) in the signal table", page, th.key, want)
		} else if got != want {
			t.Errorf("%s: threshold %s defaults to %s, the page says %s", page, th.key, want, got)
		}
		delete(documented, th.key)
	}
	for k := range documented {
		t.Errorf("%s shows threshold %s, which --history-thresholds does not take", page, k)
	}
}

// docDuration writes a default as the signal table does: 5 min, 1 h, 30 s.
func docDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%d s", d/time.Second)
}
