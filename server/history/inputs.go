package history

import (
	"time"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// inputOverhead is what a Store counts for an input beside its bytes: the
// entry and its ring slot.
const inputOverhead = 96

// inputEntry is one input kept: a link of the Store's list of inputs, in
// the order they were recorded, and a slot of its group's ring.
type inputEntry struct {
	g          *group
	at         time.Time
	generation int32
	digest     []byte
	request    []byte
	prev, next *inputEntry
}

func (e *inputEntry) size() int64 { return int64(len(e.request)) + inputOverhead }

// Input is a decision's input as a Store keeps it, for replaying it
// (policy preview, simulation).
type Input struct {
	Group      string
	Time       time.Time
	Generation int32
	// Digest is the decision's input_digest: the SHA-256 of Request.
	Digest []byte
	// Request is the AssignRequest, marshaled deterministically. It is
	// shared: do not modify it.
	Request []byte
}

// Decode unmarshals the request.
func (in Input) Decode() (*assigndv1.AssignRequest, error) {
	req := new(assigndv1.AssignRequest)
	if err := proto.Unmarshal(in.Request, req); err != nil {
		return nil, err
	}
	return req, nil
}

// addInput keeps input, d's request, under s.mu, then forgets the oldest
// inputs of the whole Store until the kept ones fit the input budget.
func (s *Store) addInput(g *group, d *assigndv1.Decision, at time.Time, input []byte) {
	e := &inputEntry{g: g, at: at, generation: d.GetGenerationId(), digest: d.GetInputDigest(), request: input}
	if s.cfg.inputsPerGroup == 0 || e.size() > s.cfg.inputBytes {
		return
	}
	if g.inputs == nil {
		g.inputs = make([]*inputEntry, s.cfg.inputsPerGroup)
	}
	size := len(g.inputs)
	if old := g.inputs[g.inputHead]; old != nil {
		s.unlinkInput(old)
	}
	// In time order, as the decisions: a record read from the log may be
	// older than one kept.
	g.inputs[g.inputHead] = e
	j := g.inputHead
	g.inputHead = (g.inputHead + 1) % size
	for range size - 1 {
		older := (j - 1 + size) % size
		if g.inputs[older] == nil || !g.inputs[older].at.After(at) {
			break
		}
		g.inputs[j], g.inputs[older] = g.inputs[older], e
		j = older
	}
	e.prev, e.next = s.inputs.prev, &s.inputs
	s.inputs.prev.next = e
	s.inputs.prev = e
	s.inputBytes += e.size()
	for s.inputBytes > s.cfg.inputBytes {
		oldest := s.inputs.next
		for i, k := range oldest.g.inputs {
			if k == oldest {
				oldest.g.inputs[i] = nil
			}
		}
		s.unlinkInput(oldest)
	}
}

// unlinkInput removes e from the list of inputs; its ring slot is the
// caller's.
func (s *Store) unlinkInput(e *inputEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	s.inputBytes -= e.size()
}

// InputBytes is what the inputs kept take, as the input budget counts
// them.
func (s *Store) InputBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputBytes
}

// Inputs returns the inputs kept of a group, oldest first (nil when none):
// a sequence of recent inputs to simulate a policy on.
func (s *Store) Inputs(group string) []Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[group]
	if g == nil || g.inputs == nil {
		return nil
	}
	var out []Input
	for i := range g.inputs {
		if e := g.inputs[(g.inputHead+i)%len(g.inputs)]; e != nil {
			out = append(out, e.input())
		}
	}
	return out
}

func (e *inputEntry) input() Input {
	return Input{Group: e.g.id, Time: e.at, Generation: e.generation, Digest: e.digest, Request: e.request}
}

// LatestInputs calls f with each group's latest kept input, decoded, in
// no particular order, until f returns false. Groups whose inputs were
// not kept (over the input budget or the record size cap) are skipped. It
// copies the references under the lock and decodes outside it.
func (s *Store) LatestInputs(f func(group string, req *assigndv1.AssignRequest) bool) {
	s.mu.Lock()
	latest := make([]Input, 0, len(s.groups))
	for _, g := range s.groups {
		if g.inputs == nil {
			continue
		}
		for i := 1; i <= len(g.inputs); i++ {
			if e := g.inputs[(g.inputHead-i+len(g.inputs))%len(g.inputs)]; e != nil {
				latest = append(latest, e.input())
				break
			}
		}
	}
	s.mu.Unlock()
	for _, in := range latest {
		req, err := in.Decode()
		if err != nil {
			continue // it was marshaled by assignd: cannot happen
		}
		if !f(in.Group, req) {
			return
		}
	}
}
