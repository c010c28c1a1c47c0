package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLogDurations: a duration reads the same in both log formats, as the
// Go string the call log's grpc.duration uses.
func TestLogDurations(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		newLogger(config{logLevel: "info", logFormat: format}, &buf).Info("x",
			"grace", 15*time.Second, slog.Group("g", slog.Duration("took", 1500*time.Microsecond)))
		line := buf.String()
		if format == "json" {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("json: %v: %s", err, line)
			}
			if m["grace"] != "15s" || m["g"].(map[string]any)["took"] != "1.5ms" {
				t.Errorf("json durations: %s", line)
			}
			continue
		}
		if !strings.Contains(line, "grace=15s") || !strings.Contains(line, "g.took=1.5ms") {
			t.Errorf("text durations: %s", line)
		}
	}
}
