package kgoassign_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestFallbackMatchesService is the fallback's contract: with the default
// policy on the server, the in-process result is byte for byte the
// service's, for every standard protocol, on random groups with owned
// partitions (conflicting claims included), static members, replica racks
// and topics missing from the metadata.
func TestFallbackMatchesService(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	for _, tc := range []struct {
		name     string
		protocol assign.RebalanceProtocol
	}{
		{assign.NameCooperativeSticky, assign.Cooperative},
		{assign.NameSticky, assign.Eager},
		{assign.NameRange, assign.Eager},
		{assign.NameRoundRobin, assign.Eager},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served kgoassign.Report
			remote, err := kgoassign.New(c, tc.name, kgoassign.WithLogger(shimtest.Quiet),
				kgoassign.WithObserver(func(r kgoassign.Report) { served = r }))
			if err != nil {
				t.Fatal(err)
			}
			local, err := kgoassign.New(nil, tc.name, kgoassign.WithLogger(shimtest.Quiet))
			if err != nil {
				t.Fatal(err)
			}
			gen := assigntest.GroupGen(assigntest.Conflicts(), assigntest.StaticMembers(), assigntest.WithRacks(),
				assigntest.MissingTopics(), assigntest.Protocol(tc.protocol), assigntest.Members(0, 12))
			rapid.Check(t, func(rt *rapid.T) {
				g := gen.Draw(rt, "group")
				want, lerr := lead(rt, local, g)
				got, rerr := lead(rt, remote, g)
				if (lerr != nil) != (rerr != nil) {
					rt.Fatalf("in-process error %v, service path error %v", lerr, rerr)
				}
				if lerr != nil {
					return
				}
				if served.Source != client.SourceService {
					rt.Fatalf("the service path fell back (%s: %v)", served.Reason, served.Err)
				}
				sameAssignments(rt, got, want)
			})
		})
	}
}
