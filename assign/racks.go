package assign

import (
	"slices"
	"sort"
)

// setRacks records member and replica racks and decides whether rack-aware
// assignment applies (KIP-881). The rack data are stored whenever members
// report racks and topics carry replica racks, because range evaluates its
// own gate per topic; rackAware is the group-wide gate the sticky assignors
// use, and it is forced off when the option turns rack awareness off.
func (st *state) setRacks(enabled bool) {
	anyMember := false
	for _, m := range st.members {
		if m.Rack != "" {
			anyMember = true
			break
		}
	}
	anyTopic := false
	for _, t := range st.topics {
		if t.Racks != nil {
			anyTopic = true
			break
		}
	}
	if !anyMember || !anyTopic || !enabled {
		return
	}
	ids := make(map[string]int32)
	var names []string
	intern := func(r string) {
		if _, ok := ids[r]; !ok {
			ids[r] = 0
			names = append(names, r)
		}
	}
	for i, m := range st.members {
		st.stop.at(i)
		if m.Rack != "" {
			intern(m.Rack)
		}
	}
	step := 0
	for _, t := range st.topics {
		for _, rs := range t.Racks {
			st.stop.at(step)
			step++
			for _, r := range rs {
				if r != "" {
					intern(r)
				}
			}
		}
	}
	sort.Strings(names)
	for i, r := range names {
		ids[r] = int32(i)
	}
	st.rackNames = names
	st.memberRack = make([]int32, len(st.members))
	for i, m := range st.members {
		st.memberRack[i] = -1
		if m.Rack != "" {
			st.memberRack[i] = ids[m.Rack]
		}
	}
	n := st.numPartitions()
	st.partRackIdx = make([]int32, n+1)
	for ti, t := range st.topics {
		for p := range int(t.Partitions) {
			g := int(st.start[ti]) + p
			st.stop.at(g)
			begin := len(st.partRacks)
			if t.Racks != nil {
				for _, r := range t.Racks[p] {
					if r != "" {
						st.partRacks = append(st.partRacks, ids[r])
					}
				}
			}
			rs := st.partRacks[begin:]
			slices.Sort(rs)
			st.partRacks = st.partRacks[:begin+len(slices.Compact(rs))]
			st.partRackIdx[g+1] = int32(len(st.partRacks))
		}
	}
	st.rackAware = st.rackGate()
}

// rackGate is the group-wide KIP-881 gate: some member rack must host a
// replica, and not every partition may have replicas in every rack (then
// every choice would be rack-local anyway).
func (st *state) rackGate() bool {
	hosted := make([]bool, len(st.rackNames))
	for i, r := range st.partRacks {
		st.stop.at(i)
		hosted[r] = true
	}
	overlap := false
	for _, r := range st.memberRack {
		if r >= 0 && hosted[r] {
			overlap = true
			break
		}
	}
	if !overlap {
		return false
	}
	all := 0
	for _, h := range hosted {
		if h {
			all++
		}
	}
	for p := range st.numPartitions() {
		st.stop.at(p)
		if int(st.partRackIdx[p+1]-st.partRackIdx[p]) != all {
			return true
		}
	}
	return false
}
