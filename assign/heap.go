package assign

// memberHeap is a binary min-heap of member indexes ordered by less. The
// engine's heaps hold a few thousand members at most and are rebuilt per
// call; entries may go stale, and callers re-check them when popped.
type memberHeap struct {
	items []int32
	less  func(a, b int32) bool
}

func (h *memberHeap) len() int { return len(h.items) }

func (h *memberHeap) push(m int32) {
	h.items = append(h.items, m)
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

func (h *memberHeap) peek() int32 { return h.items[0] }

func (h *memberHeap) pop() int32 {
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
