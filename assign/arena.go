package assign

import "unsafe"

// int32Arena hands out zeroed []int32 slices carved from a few large
// allocations, so that one Run costs a handful of allocations whatever the
// group's size (a 10-member group is assigned in a few microseconds, and
// there per-slice allocations would dominate). Slices are never returned;
// the arena lives for one Run.
//
// Slices of bigSlice elements or more get an allocation of their own, with
// a poll of the run's context before it: zeroing one block for all the
// partition-sized slices of a 10,000,000-partition group took tens of
// milliseconds in which the run could not stop; one slice at a time, the
// polls in between keep it prompt.
type int32Arena struct {
	buf  []int32
	stop *stopper
}

const bigSlice = 1 << 20

// reserve makes sure that the next n int32s come from one allocation.
func (a *int32Arena) reserve(n int) {
	if n > len(a.buf) {
		a.buf = make([]int32, n)
	}
}

// take returns a zeroed slice of length and capacity n.
func (a *int32Arena) take(n int) []int32 {
	if n >= bigSlice {
		a.stop.at(0)
		return make([]int32, n)
	}
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
		a.stop.at(i)
		s[i] = v
	}
	return s
}

// takeAs is take for one of the index kinds (index.go): they are int32
// underneath, so the arena's int32s serve them as they are, with no copy
// and no allocation of their own.
func takeAs[T ~int32](a *int32Arena, n int) []T {
	s := a.take(n)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// filledAs is filled for one of the index kinds.
func filledAs[T ~int32](a *int32Arena, n int, v T) []T {
	s := takeAs[T](a, n)
	for i := range s {
		a.stop.at(i)
		s[i] = v
	}
	return s
}
