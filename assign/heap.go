package assign

// The package's heaps are written out by hand, one per element type, in
// one style (push sifts up, down sifts down), rather than through
// container/heap or a generic heap: the count heap sits on placement's hot
// path, and there an interface or a generic method call per comparison
// costs a fifth of a rack-aware scale-out's time.

// countEntry is a member with the partition count it had when it was
// pushed. Counts change while entries sit in a heap, so these heaps are
// lazy: an entry whose c differs from the member's current count is stale
// and dropped when it reaches the top.
type countEntry struct {
	m memberIdx
	c int32
}

// countHeap is a min-heap of entries by count, ties by member index.
type countHeap struct{ items []countEntry }

func countLess(a, b countEntry) bool { return a.c < b.c || (a.c == b.c && a.m < b.m) }

func (h *countHeap) push(e countEntry) {
	h.items = append(h.items, e)
	for i := len(h.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !countLess(h.items[i], h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

// pop removes the top entry.
func (h *countHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down(0)
}

func (h *countHeap) down(i int) {
	n := len(h.items)
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < n && countLess(h.items[l], h.items[small]) {
			small = l
		}
		if r < n && countLess(h.items[r], h.items[small]) {
			small = r
		}
		if small == i {
			return
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}

// top drops stale entries and returns the least loaded member, or false.
func (h *countHeap) top(count []int32) (countEntry, bool) {
	for len(h.items) > 0 {
		if e := h.items[0]; e.c == count[e.m] {
			return e, true
		}
		h.pop()
	}
	return countEntry{}, false
}

// runHeap orders a member's topic runs for topicTrimmer: a run with room
// first (topicRun.rank), then the run furthest above an even share, ties
// by rotation.
type runHeap struct{ items []topicRun }

func runBefore(a, b topicRun) bool {
	if ra, rb := a.rank(), b.rank(); ra != rb {
		return ra > rb
	}
	if a.over != b.over {
		return a.over > b.over
	}
	return a.tie < b.tie
}

// init orders items, filled by the caller.
func (h *runHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fixTop restores the order after the top run changed.
func (h *runHeap) fixTop() { h.down(0) }

func (h *runHeap) down(i int) {
	n := len(h.items)
	for {
		l, r, first := 2*i+1, 2*i+2, i
		if l < n && runBefore(h.items[l], h.items[first]) {
			first = l
		}
		if r < n && runBefore(h.items[r], h.items[first]) {
			first = r
		}
		if first == i {
			return
		}
		h.items[i], h.items[first] = h.items[first], h.items[i]
		i = first
	}
}
