package server_test

import (
	"regexp"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server"
)

// An EAGER group whose member reports owned partitions (subscription v1)
// that the plan gives to someone else: the response lists them as revoked,
// and the call log and the revoked metric count them, as under COOPERATIVE.
func TestEagerRevokedReportedAndCounted(t *testing.T) {
	tel := newTelemetry(t)
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()))
	ops := serveOps(t, ts, tel)

	g := assigntest.NewGroup().Protocol(assign.Eager).Topic("a", 4).
		Member("m1", "a").Member("m2", "a").Owns("m1", "a", 0, 1, 2, 3).Build()
	req, _ := requestFor(t, g, "range", 1)
	resp, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, ma := range resp.GetAssignments() {
		got := tpsIn(ma.GetRevoked())
		want := map[string][]assign.TopicPartitions{"m1": {{Topic: "a", Partitions: []int32{2, 3}}}}[ma.GetMemberId()]
		if !equalTPs(got, want) {
			t.Errorf("%s revoked %v, want %v", ma.GetMemberId(), got, want)
		}
	}

	lines := ts.logs.lines(t, "finished call")
	if len(lines) != 1 || lines[0]["protocol"] != "EAGER" || lines[0]["revoked"] != 2.0 {
		t.Errorf("call log: want one EAGER line with revoked 2, got %v", lines)
	}

	_, body := get(t, ops.URL+"/metrics")
	pattern := `assignd_assign_revoked[a-z_]*_total\{assignor="range@1",.*protocol="EAGER".*\} 2`
	if !regexp.MustCompile(pattern).Match(body) {
		t.Errorf("/metrics has no line matching %s:\n%s", pattern, body)
	}
}
