package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server"
)

// configCase is one row of a flag table: the arguments and environment
// given, then either an error mentioning wantErr or a config whose part
// under test (T) check accepts.
type configCase[T any] struct {
	name    string
	args    []string
	env     map[string]string
	check   func(T) bool
	wantErr string
}

// runConfigCases parses each case and checks part of the config it gives;
// each of also then checks the whole config of every case that parsed.
func runConfigCases[T any](t *testing.T, tests []configCase[T], part func(config) T, also ...func(*testing.T, config)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			c, err := parseConfig(tt.args, lookup, &bytes.Buffer{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(part(c)) {
				t.Errorf("config = %+v", part(c))
			}
			for _, f := range also {
				f(t, c)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	tests := []configCase[config]{
		{"embedded defaults", nil, nil, func(c config) bool {
			return c.listen == "127.0.0.1:7070" && c.metricsListen == "127.0.0.1:9464" && c.maxRecvBytes == server.DefaultMaxRecvBytes &&
				c.logLevel == "info" && c.logFormat == "text" && c.maxConcurrent == 0 && c.shutdownTimeout == 15*time.Second
		}, ""},
		{"flags", []string{"--listen", "127.0.0.1:0", "--max-recv-bytes=1024", "--log-format", "json", "--max-concurrent-assigns", "3"}, nil,
			func(c config) bool {
				return c.listen == "127.0.0.1:0" && c.maxRecvBytes == 1024 && c.logFormat == "json" && c.maxConcurrent == 3
			}, ""},
		{"environment", nil, map[string]string{"ASSIGND_LISTEN": "127.0.0.1:1", "ASSIGND_LOG_LEVEL": "debug", "ASSIGND_SHUTDOWN_TIMEOUT": "2s"},
			func(c config) bool {
				return c.listen == "127.0.0.1:1" && c.logLevel == "debug" && c.shutdownTimeout == 2*time.Second
			}, ""},
		{"flag beats environment", []string{"--listen", "127.0.0.1:2"}, map[string]string{"ASSIGND_LISTEN": "127.0.0.1:1"},
			func(c config) bool { return c.listen == "127.0.0.1:2" }, ""},
		{"empty variable disables metrics", nil, map[string]string{"ASSIGND_METRICS_LISTEN": ""},
			func(c config) bool { return c.metricsListen == "" }, ""},
		{"TLS from environment", nil, map[string]string{"ASSIGND_TLS_CERT": "s.crt", "ASSIGND_TLS_KEY": "s.key", "ASSIGND_TLS_CLIENT_CA": "ca.crt"},
			func(c config) bool { return c.tlsCert == "s.crt" && c.tlsKey == "s.key" && c.tlsClientCA == "ca.crt" }, ""},
		{"policy flags", []string{"--policy", "p.yaml", "--shadow-concurrency", "0", "--shadow-max-partitions", "5"}, nil,
			func(c config) bool {
				return c.policy == "p.yaml" && c.shadowConcurrency == 0 && c.shadowMaxPartitions == 5
			}, ""},
		{"policy from environment", nil, map[string]string{"ASSIGND_POLICY": "/etc/assignd/policy.yaml", "ASSIGND_SHADOW_CONCURRENCY": "2"},
			func(c config) bool { return c.policy == "/etc/assignd/policy.yaml" && c.shadowConcurrency == 2 }, ""},
		{"no policy: embedded default, one shadow at a time", nil, nil,
			func(c config) bool {
				return c.policy == "" && c.shadowConcurrency == 1 && c.shadowMaxPartitions == 100_000
			}, ""},
		{"negative shadow concurrency", []string{"--shadow-concurrency", "-1"}, nil, nil, "negative"},
		{"bad environment value", nil, map[string]string{"ASSIGND_MAX_RECV_BYTES": "lots"}, nil, "ASSIGND_MAX_RECV_BYTES"},
		{"unknown flag", []string{"--frobnicate"}, nil, nil, "not defined"},
		{"stray argument", []string{"serve"}, nil, nil, "unexpected arguments"},
		{"cert without key", []string{"--tls-cert", "s.crt"}, nil, nil, "go together"},
		{"client CA without cert", []string{"--tls-client-ca", "ca.crt"}, nil, nil, "needs --tls-cert"},
		{"bad level", []string{"--log-level", "loud"}, nil, nil, "--log-level"},
		{"bad format", []string{"--log-format", "xml"}, nil, nil, "--log-format"},
		{"zero recv size", []string{"--max-recv-bytes", "0"}, nil, nil, "positive"},
		{"load margin", []string{"--load-margin", "3s"}, nil, func(c config) bool { return c.load.margin == 3*time.Second }, ""},
		{"load margin by default", nil, nil, func(c config) bool { return c.load.margin == 10*time.Second }, ""},
		{"negative load margin", []string{"--load-margin", "-1s"}, nil, nil, "--load-margin"},
		{"zero load interval", []string{"--load-interval", "0s"}, nil, nil, "--load-interval"},
		// Shared, the margin must leave an epoch that is past it and still
		// kept: at most two intervals.
		{"load margin over two intervals, shared", []string{"--load-interval", "4s", "--history-brokers", "k:9092"}, nil, nil, "--load-margin 10s: at most 2 × --load-interval"},
		{"load margin of two intervals, shared", []string{"--load-interval", "5s", "--history-brokers", "k:9092"}, nil, func(c config) bool { return c.load.margin == 10*time.Second }, ""},
		{"load margin over two intervals, not shared", []string{"--load-interval", "1s"}, nil, func(c config) bool { return c.load.interval == time.Second }, ""},
		{"memory budget: derived by default", nil, nil, func(c config) bool {
			return c.memoryBudget == 0 && c.maxPartitions == 2_000_000 && c.maxRecvBytes == 64<<20
		}, ""},
		{"memory budget from environment", nil, map[string]string{"ASSIGND_MEMORY_BUDGET": "536870912"},
			func(c config) bool { return c.memoryBudget == 512<<20 }, ""},
		{"negative memory budget", []string{"--memory-budget", "-1"}, nil, nil, "--memory-budget"},
		{"tiny memory budget", []string{"--memory-budget", "1024"}, nil, nil, "at least"},
	}
	runConfigCases(t, tests, func(c config) config { return c })
}

// TestHelpDocumentsEveryFlag: --help names every flag with its variable.
func TestHelpDocumentsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	_, err := parseConfig([]string{"--help"}, func(string) (string, bool) { return "", false }, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v", err)
	}
	var c config
	fs, _ := newFlagSet(&c)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out.String(), "--"+f.Name) {
			t.Errorf("--help does not document --%s", f.Name)
		}
		if !noEnv[f.Name] && !strings.Contains(out.String(), envName(f.Name)) {
			t.Errorf("--help does not name %s", envName(f.Name))
		}
	})
	for _, want := range []string{"ASSIGND_MAX_RECV_BYTES", "OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:7070"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %s", want)
		}
	}
}
