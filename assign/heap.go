package assign

// countEntry is a member with the partition count it had when it was
// pushed. Counts change while entries sit in a heap, so these heaps are
// lazy: an entry whose c differs from the member's current count is stale
// and dropped when it reaches the top.
type countEntry struct{ m, c int32 }

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

func (h *countHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < last && countLess(h.items[l], h.items[small]) {
			small = l
		}
		if r < last && countLess(h.items[r], h.items[small]) {
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
