package share

import (
	"cmp"
	"slices"
)

// spread puts every item in one of bins bins, so that bins hold ⌊n/bins⌋
// or ⌈n/bins⌉ of the n = len(cand) items, keeping as many items as it
// can in one of their current bins, cand[i] (ascending, distinct). It
// returns each item's bin. It is the one place a share plan's pairs are
// decided: planTopic calls it with partitions as items and subscribers as
// bins when there are at least as many partitions, and the other way
// round when there are more subscribers. bins must be at least 1 and at
// most len(cand).
//
// Three passes, each of which keeps the counts within the bounds:
//
//  1. Keep: items with fewer current bins first (they have less choice),
//     each stays in its current bin with the fewest items, while that bin
//     is under ⌊n/bins⌋.
//  2. Extras: n mod bins bins may hold one more. They go to the bins with
//     the most items still waiting to stay in them, each taking one.
//  3. Fill: the items left go, in order, to the bins under ⌊n/bins⌋, then
//     one each to bins until n mod bins hold ⌈n/bins⌉.
func spread[I, B ~int32](cand [][]B, bins int, poll func()) []B {
	n := len(cand)
	quota, extras := int32(n/bins), n%bins
	count := make([]int32, bins)
	bin := make([]B, n)
	for i := range bin {
		bin[i] = -1
	}

	order := make([]I, 0, n)
	for i, c := range cand {
		if len(c) > 0 {
			order = append(order, I(i))
		}
	}
	slices.SortStableFunc(order, func(a, b I) int { return cmp.Compare(len(cand[a]), len(cand[b])) })
	for _, i := range order {
		poll()
		best := B(-1)
		for _, b := range cand[i] {
			if count[b] < quota && (best < 0 || count[b] < count[best]) {
				best = b
			}
		}
		if best >= 0 {
			bin[i] = best
			count[best]++
		}
	}

	// An item still waiting found all its current bins at the quota, and
	// counts only grow, so every bin it waits for is at the quota now.
	waiting := make([][]I, bins)
	for _, i := range order {
		if bin[i] < 0 {
			for _, b := range cand[i] {
				waiting[b] = append(waiting[b], i)
			}
		}
	}
	byWaiting := make([]B, 0, bins)
	for b := range waiting {
		if len(waiting[b]) > 0 {
			byWaiting = append(byWaiting, B(b))
		}
	}
	slices.SortStableFunc(byWaiting, func(a, b B) int { return cmp.Compare(len(waiting[b]), len(waiting[a])) })
	for _, b := range byWaiting {
		if extras == 0 {
			break
		}
		for _, i := range waiting[b] {
			poll()
			if bin[i] < 0 {
				bin[i] = b
				count[b]++
				extras--
				break
			}
		}
	}

	under, atQuota := B(0), B(0)
	for i := range bin {
		if bin[i] >= 0 {
			continue
		}
		poll()
		for int(under) < bins && count[under] >= quota {
			under++
		}
		if int(under) < bins {
			bin[i] = under
			count[under]++
			continue
		}
		// Every bin is at the quota or one over: the items left are the
		// extras not yet given.
		for count[atQuota] > quota {
			atQuota++
		}
		bin[i] = atQuota
		count[atQuota]++
	}
	return bin
}
