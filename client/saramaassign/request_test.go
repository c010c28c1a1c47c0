package saramaassign

import (
	"context"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestExplicitRequestMatchesEngine checks the request builder against the
// server's reading of the explicit member form on everything the form can
// carry, including what sarama never sends (static members, racks of
// members and partitions, owned partitions with conflicting claims):
// assignd's decoded plan must be the engine's plan for the same group,
// member for member, for every eager standard assignor.
func TestExplicitRequestMatchesEngine(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	for _, name := range []string{assign.NameRange, assign.NameRoundRobin, assign.NameSticky} {
		t.Run(name, func(t *testing.T) {
			a, ok := assign.Lookup(name, 0)
			if !ok {
				t.Fatalf("no %s assignor", name)
			}
			gen := assigntest.GroupGen(assigntest.Conflicts(), assigntest.StaticMembers(), assigntest.WithRacks(),
				assigntest.MissingTopics(), assigntest.UnicodeIDs(), assigntest.Protocol(assign.Eager), assigntest.Members(0, 10))
			rapid.Check(t, func(rt *rapid.T) {
				g := gen.Draw(rt, "group")
				if name == assign.NameSticky {
					// Eager sticky members carry their previous assignment in
					// the user data.
					for i := range g.Members {
						m := &g.Members[i]
						m.UserData = wire.AppendStickyUserData(nil, m.Owned, m.Generation, m.Generation >= 0)
					}
				}
				want, err := assign.Run(a, g)
				if err != nil {
					rt.Fatalf("engine: %v", err)
				}
				resp, err := c.Assign(context.Background(), explicitRequest("g", name, g))
				if err != nil {
					rt.Fatalf("assignd: %v", err)
				}
				got, err := fromResponse(resp, g)
				if err != nil {
					rt.Fatal(err)
				}
				if len(got) != len(want.Members) {
					rt.Fatalf("%d members, the engine has %d", len(got), len(want.Members))
				}
				for i := range got {
					w := want.Members[i]
					if got[i].ID != w.ID || !samePartitions(got[i].Assigned, w.Assigned) {
						rt.Fatalf("member %s: assignd %v, engine %s %v", got[i].ID, got[i].Assigned, w.ID, w.Assigned)
					}
				}
				if !reflect.DeepEqual(resp.GetWarnings(), want.Warnings) && (len(resp.GetWarnings()) > 0 || len(want.Warnings) > 0) {
					rt.Fatalf("warnings: assignd %q, engine %q", resp.GetWarnings(), want.Warnings)
				}
			})
		})
	}
}

// samePartitions compares two lists, nil and empty alike.
func samePartitions(a, b []assign.TopicPartitions) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Topic != b[i].Topic || !reflect.DeepEqual(append([]int32{}, a[i].Partitions...), append([]int32{}, b[i].Partitions...)) {
			return false
		}
	}
	return true
}
