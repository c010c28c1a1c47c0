package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the flag reference of docs/operations.md")

// The markers of the generated flag reference in docs/operations.md.
const (
	flagTableBegin = "<!-- flag table: generated from cmd/assignd's flag declarations by `go generate ./cmd/assignd`; do not edit -->\n"
	flagTableEnd   = "<!-- end of the flag table -->\n"
)

// The flag reference in docs/operations.md is the flags as declared:
// `go generate ./cmd/assignd` rewrites it after a flag changes.
func TestFlagTableInOperations(t *testing.T) {
	const path = "../../docs/operations.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), flagTableBegin)
	_, after, ok2 := strings.Cut(rest, flagTableEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no flag table between the markers %q and %q", path, flagTableBegin, flagTableEnd)
	}
	var table bytes.Buffer
	flagTable(&table)
	want := before + flagTableBegin + "\n" + table.String() + "\n" + flagTableEnd + after
	if want == string(doc) {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the flag table of %s is not the flags as declared: run `go generate ./cmd/assignd`", path)
}

// Every flag belongs to one concern and carries its prefix; a concern's
// flags share one. Each names its value in one word.
func TestFlagsArePrefixedByConcern(t *testing.T) {
	_, groups := newFlagSet(new(config))
	n := 0
	for _, g := range groups {
		for _, f := range g.flags {
			n++
			prefix, _, _ := strings.Cut(f.Name, "-")
			if p, ok := concernPrefix[g.title]; ok && prefix != p {
				t.Errorf("--%s is in %q, whose flags start with --%s-", f.Name, g.title, p)
			}
			// The first `quoted` word of a help text names the value.
			if name, _ := flag.UnquoteUsage(f); strings.Contains(name, " ") {
				t.Errorf("--%s takes a value named %q: quote one word of its help text, or none", f.Name, name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no flags")
	}
}

// concernPrefix is the prefix of each prefixed concern's flags.
var concernPrefix = map[string]string{
	"HTTP listener: metrics, probes, console": "metrics",
	"Logs":                          "log",
	"History and the history topic": "history",
	"Staged rollouts":               "rollout",
	"Load from Kafka":               "load",
}
