package faults

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
)

// duplicates describes the records a group consumed more than once, by
// partition and by who consumed them the second time: at-least-once
// delivery redelivers what was processed but not committed when a
// partition changed hands. issued is how many records the producer
// numbered (values 0 to issued-1).
func duplicates(l *grouplab.Ledger, issued int) string {
	type key struct {
		tp           grouplab.TP
		first, again string
	}
	type span struct {
		n       int
		lo, hi  int64
		firstAt time.Time
		againAt time.Time
	}
	spans := map[key]*span{}
	for v := range issued {
		cs := l.ConsumersOf(strconv.Itoa(v))
		if len(cs) < 2 {
			continue
		}
		k := key{cs[0].TP, cs[0].Member, cs[1].Member}
		s := spans[k]
		if s == nil {
			s = &span{lo: cs[0].Offset, hi: cs[0].Offset, firstAt: cs[0].At, againAt: cs[1].At}
			spans[k] = s
		}
		s.n++
		s.lo, s.hi = min(s.lo, cs[0].Offset), max(s.hi, cs[0].Offset)
	}
	keys := make([]key, 0, len(spans))
	for k := range spans {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return spans[keys[i]].n > spans[keys[j]].n })
	var b strings.Builder
	for i, k := range keys {
		if i == 8 {
			fmt.Fprintf(&b, "  ... %d more\n", len(keys)-i)
			break
		}
		s := spans[k]
		fmt.Fprintf(&b, "  %s offsets %d-%d (%d records): %s at %s, again by %s at %s\n", k.tp, s.lo, s.hi, s.n,
			k.first, s.firstAt.Format("15:04:05.000"), k.again, s.againAt.Format("15:04:05.000"))
	}
	return b.String()
}
