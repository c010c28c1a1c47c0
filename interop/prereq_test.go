//go:build unix

package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeExample is the KafkaJS example package, relative to this package.
var nodeExample = filepath.Join("..", "examples", "node")

// pinned are the example's dependencies that must be installed (npm ci)
// at exactly the versions its package.json pins.
var pinned = []string{"kafkajs", "@grpc/grpc-js", "@grpc/proto-loader"}

// missingPrerequisite skips the test, or fails it when ASSIGND_INTEROP is
// "require": CI installs everything and must not pass by skipping.
func missingPrerequisite(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("ASSIGND_INTEROP") == "require" {
		t.Fatalf("ASSIGND_INTEROP=require but "+format, args...)
	}
	t.Skipf(format, args...)
}

// requireNode checks for node and the example's installed dependencies.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missingPrerequisite(t, "node is not installed (the KafkaJS example needs Node.js 18 or later)")
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(nodeExample, "package.json"))
	if err != nil {
		t.Fatalf("reading the example's package.json: %v", err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("parsing the example's package.json: %v", err)
	}
	for _, name := range pinned {
		want, ok := pkg.Dependencies[name]
		if !ok {
			t.Fatalf("examples/node/package.json does not depend on %s", name)
		}
		var installed struct {
			Version string `json:"version"`
		}
		raw, err := os.ReadFile(filepath.Join(nodeExample, "node_modules", name, "package.json"))
		if err != nil || json.Unmarshal(raw, &installed) != nil {
			missingPrerequisite(t, "%s is not installed: run `npm ci` in examples/node", name)
		}
		if installed.Version != want {
			missingPrerequisite(t, "%s %s is installed but package.json pins %s: run `npm ci` in examples/node", name, installed.Version, want)
		}
	}
}

// requireKcat checks for kcat and returns its version line.
func requireKcat(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		missingPrerequisite(t, "kcat is not installed (Debian: apt-get install kcat)")
	}
	out, err := exec.Command("kcat", "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("kcat -V: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "librdkafka") {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(string(out))
}
