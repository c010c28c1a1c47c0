package kgoassign_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/testbed/contains"
)

// plotPanel is one assignor's run in the plot.
type plotPanel struct {
	title string
	run   shiftRun
}

// Plot geometry, in SVG user units.
const (
	plotWidth   = 720
	panelHeight = 230
	plotLeft    = 60  // room for the y labels
	plotRight   = 110 // room for the legend
	plotTop     = 30  // room for the panel's title
	plotBottom  = 40  // room for the x labels
)

// memberColours are the members' line colours, in name order.
var memberColours = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}

// renderLoadPlot draws, for each panel, every member's backlog over time
// as a line, on shared axes so that the panels compare, with a dashed
// line where the hot spot shifts. Hand-written SVG: a few hundred lines
// of output, no dependency.
func renderLoadPlot(panels []plotPanel) []byte {
	maxT, maxY := 0.0, 0.0
	for _, p := range panels {
		for _, s := range p.run.samples {
			maxT = math.Max(maxT, s.at)
			for _, n := range s.pending {
				maxY = math.Max(maxY, float64(n))
			}
		}
	}
	maxT = niceCeil(maxT)
	maxY = niceCeil(maxY)
	var b bytes.Buffer
	h := panelHeight * len(panels)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotWidth, h, plotWidth, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotWidth, h)
	for i, p := range panels {
		drawPanel(&b, p, float64(i*panelHeight), maxT, maxY)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func drawPanel(b *bytes.Buffer, p plotPanel, y0, maxT, maxY float64) {
	w := float64(plotWidth - plotLeft - plotRight)
	h := float64(panelHeight - plotTop - plotBottom)
	x := func(t float64) float64 { return plotLeft + t/maxT*w }
	y := func(v float64) float64 { return y0 + plotTop + h - v/maxY*h }
	fmt.Fprintf(b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", plotLeft, y0+18, p.title)
	// Axes and grid.
	for i := 0; i <= 4; i++ {
		v := maxY * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", plotLeft, y(v), x(maxT), y(v))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%.0f</text>`+"\n", plotLeft-6, y(v)+4, v)
	}
	for i := 0; i <= 5; i++ {
		t := maxT * float64(i) / 5
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x(t), y(0), x(t), y(maxY))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.1f s</text>`+"\n", x(t), y(0)+16, t)
	}
	fmt.Fprintf(b, `<text x="14" y="%.1f" transform="rotate(-90 14 %.1f)" text-anchor="middle">records pending</text>`+"\n", y(maxY/2), y(maxY/2))
	// The shift.
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="4 3"/>`+"\n", x(p.run.shiftAt), y(0), x(p.run.shiftAt), y(maxY))
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="#555">hot spot shifts; rebalance moves %d</text>`+"\n", x(p.run.shiftAt)+4, y(maxY)+12, p.run.moves)
	// One line per member.
	var names []string
	if len(p.run.samples) > 0 {
		for n := range p.run.samples[0].pending {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for i, n := range names {
		colour := memberColours[i%len(memberColours)]
		var pts strings.Builder
		for _, s := range p.run.samples {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(s.at), y(float64(s.pending[n])))
		}
		// Wider lines first, so that members with equal backlogs stay
		// visible on top of each other.
		width := 1.5 + 2*float64(len(names)-1-i)
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="%.1f" stroke-opacity="0.8" points="%s"/>`+"\n", colour, width, strings.TrimSpace(pts.String()))
		ly := y0 + plotTop + 10 + float64(i)*18
		lx := float64(plotWidth - plotRight + 12)
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+20, ly, colour)
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f">member %s</text>`+"\n", lx+26, ly+4, n)
	}
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, so that the
// axes' ticks are round.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func TestNiceCeil(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {0.7, 1}, {1, 1}, {1.2, 2}, {3, 5}, {6.1, 10}, {660, 1000}, {330, 500}, {200, 200},
	} {
		if got := niceCeil(tc.in); got != tc.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRenderLoadPlot(t *testing.T) {
	run := shiftRun{shiftAt: 1, moves: 2, samples: []loadSample{
		{at: 0, pending: map[string]int{"a": 300, "b": 30}},
		{at: 2, pending: map[string]int{"a": 0, "b": 0}},
	}}
	svg := string(renderLoadPlot([]plotPanel{{title: "one", run: run}, {title: "two", run: run}}))
	contains.All(t, "the plot", svg,
		`<svg xmlns="http://www.w3.org/2000/svg" width="720" height="460"`,
		// member a: (0 s, 300 of 500) and (2 s, 0) on a 2 s axis, in the first panel.
		`points="60.0,94.0 610.0,190.0"`,
		`hot spot shifts; rebalance moves 2`, `>member b<`, `>two<`,
	)
	if n := strings.Count(svg, "<polyline"); n != 4 {
		t.Errorf("%d lines, want 4 (two members, two panels)", n)
	}
}
