package assign

// heapItem is what minHeap orders: less reports whether the item goes
// before other.
type heapItem[T any] interface{ less(other T) bool }

// minHeap is the package's one binary min-heap. Its zero value is an empty
// heap; items is exposed so that a caller may fill it and call init, or
// change the top in place and call fixTop.
type minHeap[T heapItem[T]] struct{ items []T }

func (h *minHeap[T]) push(x T) {
	h.items = append(h.items, x)
	for i := len(h.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.items[i].less(h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

// pop removes the top item.
func (h *minHeap[T]) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down(0)
}

// fixTop restores the order after the top item changed.
func (h *minHeap[T]) fixTop() { h.down(0) }

// init orders items, filled by the caller.
func (h *minHeap[T]) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *minHeap[T]) down(i int) {
	n := len(h.items)
	for {
		l, r, small := 2*i+1, 2*i+2, i
		if l < n && h.items[l].less(h.items[small]) {
			small = l
		}
		if r < n && h.items[r].less(h.items[small]) {
			small = r
		}
		if small == i {
			return
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}

// countEntry is a member with the partition count it had when it was
// pushed. Counts change while entries sit in a heap, so these heaps are
// lazy: an entry whose c differs from the member's current count is stale
// and dropped when it reaches the top.
type countEntry struct{ m, c int32 }

// less orders entries by count, ties by member index.
func (a countEntry) less(b countEntry) bool { return a.c < b.c || (a.c == b.c && a.m < b.m) }

// countHeap is a lazy min-heap of members by count.
type countHeap struct{ minHeap[countEntry] }

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
