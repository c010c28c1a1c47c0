package assign

// loadEntry is a member with the load and count it had when it was
// pushed. As in countHeap, entries go stale when the member's load or
// count changes (every change pushes a fresh entry) and are dropped when
// they reach the top.
type loadEntry struct {
	load float64
	c    int32
	m    int32
}

// loadHeap is a binary heap of entries: the least loaded member first
// (ties by count, then member index), or, with most set, the most loaded
// first (ties by member index).
type loadHeap struct {
	items []loadEntry
	most  bool
}

func (h *loadHeap) less(a, b loadEntry) bool {
	if a.load != b.load {
		return (a.load < b.load) != h.most
	}
	if !h.most && a.c != b.c {
		return a.c < b.c
	}
	return a.m < b.m
}

func (h *loadHeap) push(e loadEntry) {
	h.items = append(h.items, e)
	for i := len(h.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *loadHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, r, top := 2*i+1, 2*i+2, i
		if l < last && h.less(h.items[l], h.items[top]) {
			top = l
		}
		if r < last && h.less(h.items[r], h.items[top]) {
			top = r
		}
		if top == i {
			return
		}
		h.items[i], h.items[top] = h.items[top], h.items[i]
		i = top
	}
}
