package policy_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// revisionOf parses content the way the watcher will, for its revision.
func revisionOf(t *testing.T, content string) string {
	t.Helper()
	return mustParse(t, content).Revision()
}

// policyV returns a valid policy whose rule for group "orders" is named
// name, so a test can tell which revision served a request.
func policyV(name string) string {
	return `version: 1
rules:
  - name: ` + name + `
    match: {groups: [orders], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 10}
`
}

type watchEnv struct {
	path string
	src  *policy.Source
	m    *meter
	logs *logBuffer
}

func startWatch(t *testing.T, initial string, opts ...policy.Option) *watchEnv {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(initial), 0o644); err != nil {
		t.Fatal(err)
	}
	m, logs := newMeter(t), &logBuffer{}
	opts = append([]policy.Option{
		policy.WithDebounce(10 * time.Millisecond), policy.WithResync(0),
		policy.WithMeterProvider(m.provider), policy.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
	}, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	src, err := policy.Watch(ctx, path, opts...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	})
	return &watchEnv{path: path, src: src, m: m, logs: logs}
}

// rule is the rule that serves group "orders" now.
func (w *watchEnv) rule(t *testing.T) string {
	t.Helper()
	sel, err := w.src.Select(context.Background(), selection.Query{GroupID: "orders", ProtocolName: "cooperative-sticky"})
	if err != nil {
		t.Fatal(err)
	}
	name, _, _ := strings.Cut(sel.Policy, "/")
	return name
}

func (w *watchEnv) waitRevision(t *testing.T, rev string) {
	t.Helper()
	eventually(t, 5*time.Second, "revision "+rev, func() bool { return w.src.Policy().Revision() == rev })
}

func (w *watchEnv) failures(t *testing.T) int64 {
	n, _ := w.m.value(t, "assignd.policy.reload.failures", nil)
	return n
}

func (w *watchEnv) rejected(t *testing.T) int64 {
	n, _ := w.m.value(t, "assignd.policy.reload.rejected", nil)
	return n
}

func TestWatchReloadsAValidFile(t *testing.T) {
	w := startWatch(t, policyV("one"))
	if got := w.rule(t); got != "one" {
		t.Fatalf("serving %q", got)
	}
	v2 := policyV("two")
	replaceFile(t, w.path, []byte(v2))
	w.waitRevision(t, revisionOf(t, v2))
	if got := w.rule(t); got != "two" {
		t.Errorf("serving %q after reload", got)
	}
	// The new revision serves first; the count and the log line follow
	// it, from the watcher's goroutine.
	eventually(t, 5*time.Second, "the reload's log line", func() bool {
		return len(w.logs.lines("policy reloaded", "revision="+revisionOf(t, v2))) > 0
	})
	if n, _ := w.m.value(t, "assignd.policy.reloads", map[string]string{"revision": revisionOf(t, v2)}); n != 1 {
		t.Errorf("reloads = %d, want 1", n)
	}
	if attrs := w.m.gaugeAttrs(t, "assignd.policy.revision"); len(attrs) != 1 || !hasAll(attrs[0], map[string]string{"revision": revisionOf(t, v2), "file": w.path}) {
		t.Errorf("revision gauge points %v, want only the new revision", attrs)
	}
	if len(w.logs.lines("policy reloaded", "revision="+revisionOf(t, v2), "previous_revision="+revisionOf(t, policyV("one")))) != 1 {
		t.Errorf("no reload line: %s", w.logs.String())
	}
	// Rewriting the same content is no new revision.
	replaceFile(t, w.path, []byte(v2))
	if err := w.src.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, _ := w.m.value(t, "assignd.policy.reloads", nil); n != 1 {
		t.Errorf("reloads = %d after rewriting the same content, want 1", n)
	}
}

func TestWatchKeepsLastGoodRevisionOnInvalidFile(t *testing.T) {
	v1 := policyV("one")
	w := startWatch(t, v1)
	bad := policyV("two") + "    shadow: {assignor: cooperative-sticky@99}\n"
	replaceFile(t, w.path, []byte(bad))
	eventually(t, 5*time.Second, "the failure metric", func() bool { return w.failures(t) == 1 })
	if got := w.rule(t); got != "one" || w.src.Policy().Revision() != revisionOf(t, v1) {
		t.Errorf("serving %q at %s, want the last good revision", got, w.src.Policy().Revision())
	}
	if w.rejected(t) != 1 {
		t.Error("rejected gauge is not 1")
	}
	lines := w.logs.lines("policy file rejected", "serving_revision="+revisionOf(t, v1), "reason=invalid")
	if len(lines) != 1 || !strings.Contains(lines[0], `unknown assignor \"cooperative-sticky@99\"`) || !strings.Contains(lines[0], `:7: rule \"two\": shadow.assignor`) {
		t.Errorf("want one ERROR line naming the problem and line, got %s", w.logs.String())
	}
	if n, _ := w.m.value(t, "assignd.policy.reload.failures", map[string]string{"reason": "invalid"}); n != 1 {
		t.Errorf("failures{reason=invalid} = %d", n)
	}

	// The same bad content again is not a new failure, and Reload reports it.
	if err := w.src.Reload(context.Background()); err == nil {
		t.Error("Reload of an invalid file returned nil")
	}
	if w.failures(t) != 1 || len(w.logs.lines("policy file rejected")) != 1 {
		t.Errorf("the same bad content was reported again")
	}

	// Fixing the file serves it and clears the flag.
	v3 := policyV("three")
	replaceFile(t, w.path, []byte(v3))
	w.waitRevision(t, revisionOf(t, v3))
	if w.rejected(t) != 0 {
		t.Error("rejected gauge still set after a good file")
	}
}

// A file written in place is seen half-written: the truncated content is
// rejected and the old revision serves until the write completes.
func TestWatchSurvivesHalfWrittenFile(t *testing.T) {
	w := startWatch(t, policyV("one"))
	full := policyV("two")
	cut := strings.Index(full, "cooperative-sticky@1") + len("cooperative-st")
	if err := os.WriteFile(w.path, []byte(full[:cut]), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the truncated file to be rejected", func() bool { return w.failures(t) == 1 })
	if got := w.rule(t); got != "one" {
		t.Errorf("serving %q from a truncated file", got)
	}
	if err := os.WriteFile(w.path, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	w.waitRevision(t, revisionOf(t, full))
	if got := w.rule(t); got != "two" {
		t.Errorf("serving %q after the write completed", got)
	}

	// An empty file (truncated to nothing) is rejected too.
	if err := os.WriteFile(w.path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the empty file to be rejected", func() bool { return w.failures(t) == 2 })
	if got := w.rule(t); got != "two" {
		t.Errorf("serving %q from an empty file", got)
	}
	if len(w.logs.lines("policy file rejected", "the file is empty")) != 1 {
		t.Errorf("no line for the empty file: %s", w.logs.String())
	}
}

func TestWatchSurvivesRemovalAndRecreation(t *testing.T) {
	w := startWatch(t, policyV("one"))
	if err := os.Remove(w.path); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the missing file to be reported", func() bool {
		n, _ := w.m.value(t, "assignd.policy.reload.failures", map[string]string{"reason": "read"})
		return n == 1
	})
	if got := w.rule(t); got != "one" {
		t.Errorf("serving %q without a file", got)
	}
	v2 := policyV("two")
	if err := os.WriteFile(w.path, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	w.waitRevision(t, revisionOf(t, v2))
}

// Kubernetes mounts a ConfigMap as policy.yaml → ..data/policy.yaml and
// updates it by pointing the ..data symlink at a new directory; the file
// itself never changes.
func TestWatchFollowsConfigMapSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	write := func(version, content string) {
		if err := os.Mkdir(filepath.Join(dir, version), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, version, "policy.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(version, filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	write("..v1", policyV("one"))
	path := filepath.Join(dir, "policy.yaml")
	if err := os.Symlink(filepath.Join("..data", "policy.yaml"), path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := policy.Watch(ctx, path, policy.WithDebounce(10*time.Millisecond), policy.WithResync(0),
		policy.WithMeterProvider(newMeter(t).provider), policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	v2 := policyV("two")
	write("..v2", v2)
	eventually(t, 5*time.Second, "the swapped ConfigMap", func() bool { return src.Policy().Revision() == revisionOf(t, v2) })
}

// With change notifications effectively off (a debounce of an hour), the
// periodic resync still picks up a change.
func TestWatchResync(t *testing.T) {
	w := startWatch(t, policyV("one"), policy.WithDebounce(time.Hour), policy.WithResync(20*time.Millisecond))
	v2 := policyV("two")
	replaceFile(t, w.path, []byte(v2))
	w.waitRevision(t, revisionOf(t, v2))
}

func TestWatchRefusesABadStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules: [{name: x}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := policy.Watch(ctx, bad); err == nil {
		t.Error("Watch accepted an invalid file")
	}
	if _, err := policy.Watch(ctx, filepath.Join(dir, "missing", "p.yaml")); err == nil {
		t.Error("Watch accepted a missing file")
	}
}

// Cancelling the context stops the watcher; Close still returns.
func TestWatchStopsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(policyV("one")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	src, err := policy.Watch(ctx, path, policy.WithMeterProvider(newMeter(t).provider))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- src.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung after the context was cancelled")
	}
}
