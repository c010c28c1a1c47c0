package console

import (
	"fmt"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// timeline is the group page's inline SVG chart: one bar per decision,
// oldest on the left, its height the partitions moved, with the withheld
// ones stacked on top in another colour, and a marker on decisions that
// required a follow-up.
type timeline struct {
	Width, Height int
	Bars          []bar
	// Gaps mark generations assignd never saw between two bars: the
	// rebalances a leader's fallback (or a leader without assignd) led.
	Gaps []gapMark
}

type gapMark struct {
	X, Width       int
	Title          string
	LabelX, LabelY int
}

type bar struct {
	X, Width            int
	MovedY, MovedHeight int
	HeldY, HeldHeight   int
	Followup            bool
	Title               string
	LabelX, LabelY      int
	Generation          int32
}

const (
	barWidth  = 28
	barGap    = 8
	chartH    = 120
	labelRoom = 16
	gapWidth  = 14
)

func newTimeline(newestFirst []*assigndv1.Decision) timeline {
	peak := int32(1)
	for _, d := range newestFirst {
		peak = max(peak, d.GetMoved()+d.GetWithheld())
	}
	t := timeline{Height: chartH + labelRoom}
	x := barGap
	for i := range newestFirst {
		d := newestFirst[len(newestFirst)-1-i]
		if i > 0 {
			prev := newestFirst[len(newestFirst)-i]
			if from, to := prev.GetGenerationId(), d.GetGenerationId(); to > from+1 {
				title := fmt.Sprintf("generation %d never reached assignd", from+1)
				if to > from+2 {
					title = fmt.Sprintf("generations %d to %d never reached assignd", from+1, to-1)
				}
				t.Gaps = append(t.Gaps, gapMark{X: x, Width: gapWidth, Title: title, LabelX: x + gapWidth/2, LabelY: chartH + labelRoom - 3})
				x += gapWidth + barGap
			}
		}
		mh := int(d.GetMoved()) * (chartH - 10) / int(peak)
		hh := int(d.GetWithheld()) * (chartH - 10) / int(peak)
		t.Bars = append(t.Bars, bar{
			X: x, Width: barWidth,
			MovedY: chartH - mh, MovedHeight: mh,
			HeldY: chartH - mh - hh, HeldHeight: hh,
			Followup:   d.GetFollowupRequired(),
			Title:      fmt.Sprintf("generation %d: %d moved, %d withheld, %d revoked", d.GetGenerationId(), d.GetMoved(), d.GetWithheld(), d.GetRevoked()),
			LabelX:     x + barWidth/2,
			LabelY:     chartH + labelRoom - 3,
			Generation: d.GetGenerationId(),
		})
		x += barWidth + barGap
	}
	t.Width = x
	return t
}
