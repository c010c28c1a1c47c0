package assign

// countEntry is a member with the partition count it had when it was
// pushed. Counts change while entries sit in a heap, so every heap of
// entries is lazy: an entry whose c differs from the member's current count
// is stale and skipped when it reaches the top.
type countEntry struct{ m, c int32 }

// countHeap orders entries by count, ascending (or descending when max is
// set), ties by ascending member index.
type countHeap struct {
	items []countEntry
	max   bool
}

func (h *countHeap) less(a, b countEntry) bool {
	if a.c != b.c {
		return (a.c < b.c) != h.max
	}
	return a.m < b.m
}

func (h *countHeap) push(e countEntry) {
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *countHeap) pop() countEntry {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	i := 0
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < last && h.less(h.items[l], h.items[small]) {
			small = l
		}
		if r < last && h.less(h.items[r], h.items[small]) {
			small = r
		}
		if small == i {
			return top
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}

// top drops stale entries and returns the current top, or false if empty.
func (h *countHeap) top(count []int32) (countEntry, bool) {
	for len(h.items) > 0 {
		if e := h.items[0]; e.c == count[e.m] {
			return e, true
		}
		h.pop()
	}
	return countEntry{}, false
}
