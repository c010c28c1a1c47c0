package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

//go:generate go test -run TestFlagTableInOperations -update-docs .

// A concern is one group of flags, prefixed alike: its title in --help
// and docs/operations.md, the page that explains it, and the function
// that declares its flags, beside the code that uses them.
type concern struct {
	title, doc string
	flags      func(fs *flag.FlagSet, c *config)
}

// concerns declares every flag of assignd, in the order --help and
// docs/operations.md list them.
var concerns = []concern{
	{"gRPC listener", "deploy.md", grpcFlags},
	{"Admission", "#bounded-work", admissionFlags},
	{"HTTP listener: metrics, probes, console", "observatory.md#who-can-see-what", metricsFlags},
	{"Logs", "#logs-and-traces", logFlags},
	{"Policy and shadows", "policy.md", policyFlags},
	{"History and the history topic", "observatory.md#sharing-through-kafka", historyFlags},
	{"Staged rollouts", "staged-rollouts.md", rolloutFlags},
	{"Load from Kafka", "load-aware.md#load-from-kafka", loadFlags},
	{"Version", "", versionFlags},
}

// flagGroup is a concern's flags as declared.
type flagGroup struct {
	concern
	flags []*flag.Flag
}

// newFlagSet declares every flag of assignd into c, and returns them by
// concern too.
func newFlagSet(c *config) (*flag.FlagSet, []flagGroup) {
	fs := flag.NewFlagSet("assignd", flag.ContinueOnError)
	groups := make([]flagGroup, 0, len(concerns))
	for _, cn := range concerns {
		own := flag.NewFlagSet(cn.title, flag.ContinueOnError)
		cn.flags(own, c)
		g := flagGroup{concern: cn}
		own.VisitAll(func(f *flag.Flag) {
			fs.Var(f.Value, f.Name, f.Usage)
			g.flags = append(g.flags, fs.Lookup(f.Name))
		})
		groups = append(groups, g)
	}
	return fs, groups
}

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return "ASSIGND_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// noEnv lists flags that have no environment variable.
var noEnv = map[string]bool{"version": true}

func usage(w io.Writer) {
	fmt.Fprintf(w, `assignd serves Kafka consumer-group partition assignments over gRPC
(assignd.v1.AssignmentService), with health checking, reflection, Prometheus
metrics and optional OTLP tracing.

Usage: assignd [flags]

With no flags it listens on %s (gRPC) and %s (HTTP).
Every flag can also be set with the environment variable shown; a flag on
the command line wins. Traces are exported only when OTEL_TRACES_EXPORTER,
OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; the
standard OTEL_* variables choose the exporter, protocol (http/protobuf by
default, or grpc), endpoint and headers.
SIGTERM or SIGINT shuts down gracefully; SIGHUP re-reads the --policy file.
`, defaultListen, defaultMetricsListen)
	_, groups := newFlagSet(new(config))
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, f := range g.flags {
			name, text := flag.UnquoteUsage(f)
			line := "  --" + f.Name
			if name != "" {
				line += " " + name
			}
			fmt.Fprintf(w, "%s\n      %s\n", line, text)
			var facts []string
			if !noEnv[f.Name] {
				facts = append(facts, "env "+envName(f.Name))
			}
			if f.DefValue != "" && f.DefValue != "false" {
				facts = append(facts, "default "+f.DefValue)
			}
			if len(facts) > 0 {
				fmt.Fprintf(w, "      (%s)\n", strings.Join(facts, ", "))
			}
		}
	}
}

// flagTable writes the flag reference of docs/operations.md: a table per
// concern, from the flags' declarations.
func flagTable(w io.Writer) {
	_, groups := newFlagSet(new(config))
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "### %s\n\n", g.title)
		if g.doc != "" {
			text, _, _ := strings.Cut(g.doc, "#")
			if text == "" { // a section of this page
				text = strings.ReplaceAll(strings.TrimPrefix(g.doc, "#"), "-", " ")
			}
			fmt.Fprintf(w, "See [%s](%s).\n\n", text, g.doc)
		}
		fmt.Fprintln(w, "| flag | environment | default | meaning |")
		fmt.Fprintln(w, "| --- | --- | --- | --- |")
		for _, f := range g.flags {
			_, text := flag.UnquoteUsage(f)
			env, def := "—", "—"
			if !noEnv[f.Name] {
				env = "`" + envName(f.Name) + "`"
			}
			if f.DefValue != "" {
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(w, "| `--%s` | %s | %s | %s |\n", f.Name, env, def, strings.ReplaceAll(text, "|", `\|`))
		}
	}
}
