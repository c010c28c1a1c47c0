package assigntest_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// GroupGen draws valid groups of the requested shape.
func TestGroupGen(t *testing.T) {
	shapes := map[string][]assigntest.GenOption{
		"default": nil,
		"everything": {assigntest.StaticMembers(), assigntest.WithRacks(), assigntest.MissingTopics(),
			assigntest.Conflicts(), assigntest.UnicodeIDs(), assigntest.Members(2, 8)},
		"equal owned": {assigntest.EqualSubscriptions(), assigntest.Owned(), assigntest.Topics(2, 3), assigntest.Partitions(1, 4)},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := assigntest.GroupGen(shape...).Draw(t, "group")
				if _, err := assign.Run(assign.Range(), g); err != nil {
					t.Fatalf("Run rejected a generated group: %v", err)
				}
				ids, instances := map[string]bool{}, map[string]bool{}
				claims := map[assigntest.TP]int{}
				counts := map[string]int32{}
				for _, top := range g.Topics {
					counts[top.Name] = top.Partitions
					if top.Racks != nil && len(top.Racks) != int(top.Partitions) {
						t.Fatalf("topic %s: %d rack lists for %d partitions", top.Name, len(top.Racks), top.Partitions)
					}
				}
				for _, m := range g.Members {
					if ids[m.ID] || (m.InstanceID != "" && instances[m.InstanceID]) {
						t.Fatalf("duplicate id in %+v", m)
					}
					ids[m.ID], instances[m.InstanceID] = true, true
					if m.Generation >= g.Generation {
						t.Fatalf("member %s generation %d not below the group's %d", m.ID, m.Generation, g.Generation)
					}
					if name == "equal owned" && !slices.Equal(m.Topics, g.Members[0].Topics) {
						t.Fatalf("subscriptions differ: %v vs %v", m.Topics, g.Members[0].Topics)
					}
					for _, tp := range m.Owned {
						for _, p := range tp.Partitions {
							if p < 0 || p >= counts[tp.Topic] {
								t.Fatalf("member %s owns %s-%d beyond the metadata", m.ID, tp.Topic, p)
							}
							claims[assigntest.TP{Topic: tp.Topic, Partition: p}]++
						}
					}
				}
				for k, n := range claims {
					if n > 1 && name != "everything" {
						t.Fatalf("%v claimed %d times without Conflicts", k, n)
					}
				}
			})
		})
	}
}
