package assign

// int32Arena hands out zeroed []int32 slices carved from a few large
// allocations, so that one Run costs a handful of allocations whatever the
// group's size (a 10-member group is assigned in a few microseconds, and
// there per-slice allocations would dominate). Slices are never returned;
// the arena lives for one Run.
type int32Arena struct{ buf []int32 }

// reserve makes sure that the next n int32s come from one allocation.
func (a *int32Arena) reserve(n int) {
	if n > len(a.buf) {
		a.buf = make([]int32, n)
	}
}

// take returns a zeroed slice of length and capacity n.
func (a *int32Arena) take(n int) []int32 {
	if n > len(a.buf) {
		a.reserve(max(n, 256))
	}
	s := a.buf[:n:n]
	a.buf = a.buf[n:]
	return s
}

// filled returns a slice of length n with every element set to v.
func (a *int32Arena) filled(n int, v int32) []int32 {
	s := a.take(n)
	for i := range s {
		s[i] = v
	}
	return s
}
