package main

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
)

// loopbackArgs start a test's assignd on ports the kernel picks, logging
// JSON for readLog; the address the kernel picked comes back in the
// "assignd serving" record.
func loopbackArgs(args ...string) []string {
	return slices.Concat([]string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--log-format", "json"}, args)
}

// readLog parses assignd's JSON log from r until it ends: the serving
// record goes to serving, every later record to lines (dropped when no one
// reads lines, so a chatty server never blocks on its log). It drains r to
// the end even after a line too long to parse, so the writer never blocks.
func readLog(r io.Reader, serving, lines chan<- map[string]any) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if rec["msg"] == "assignd serving" {
			serving <- rec
			continue
		}
		select {
		case lines <- rec:
		default:
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// servingAddrs are the gRPC and metrics addresses of a serving record.
func servingAddrs(rec map[string]any) (grpcAddr, metricsAddr string) {
	grpcAddr, _ = rec["grpc_addr"].(string)
	metricsAddr, _ = rec["metrics_addr"].(string)
	return grpcAddr, metricsAddr
}
