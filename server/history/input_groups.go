package history

// InputGroups returns the ids of the groups with at least one kept input,
// in no particular order, without decoding any: a listing to page over
// before replaying some (policy preview, migration report).
func (s *Store) InputGroups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.groups))
	for id, g := range s.groups {
		for _, e := range g.inputs {
			if e != nil {
				out = append(out, id)
				break
			}
		}
	}
	return out
}
