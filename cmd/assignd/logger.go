package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

func logFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.StringVar(&c.logFormat, "log-format", "text", "log `format`: text or json")
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// newLogger logs to w in the configured format at the configured level.
// Every duration is written the same way in both formats, as Go prints it
// ("1.234ms", "15s"; see [durationsAsText]).
func newLogger(c config, w io.Writer) *slog.Logger {
	level, _ := parseLevel(c.logLevel) // validated by parseConfig
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: durationsAsText}
	if c.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// durationsAsText writes a duration attribute as its Go string. slog's JSON
// handler would write integer nanoseconds and its text handler the Go
// string, so without this one log line's duration had a different unit in
// each format, and beside the call log's grpc.duration (a string already).
func durationsAsText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}
