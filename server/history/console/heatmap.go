package console

import (
	"fmt"
	"html/template"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// heatmap is the group page's member x topic table of the latest
// decision's assignment: one row per member listed, one column per topic
// listed, each cell the partitions of that topic the member was assigned,
// shaded by its share of the largest cell.
type heatmap struct {
	Topics []string
	Rows   []heatRow
	// Partial says the decision listed fewer members or topics than the
	// group has (the record's caps).
	Partial bool
}

type heatRow struct {
	Member string
	Total  int32
	Cells  []heatCell
}

type heatCell struct {
	Count int32
	// Style is the cell's background, from a fixed palette: nothing the
	// client sent reaches it, so it is trusted CSS.
	Style template.CSS
}

// newHeatmap builds the heatmap of d; ok is false when d carries no
// per-topic counts (recorded before they existed).
func newHeatmap(d *assigndv1.Decision) (heatmap, bool) {
	topics := d.GetTopics()
	if len(topics) == 0 || len(d.GetMembers()) == 0 {
		return heatmap{}, false
	}
	peak := int32(1)
	for _, m := range d.GetMembers() {
		for _, n := range m.GetAssignedByTopic() {
			peak = max(peak, n)
		}
	}
	h := heatmap{Topics: topics, Partial: int(d.GetMemberCount()) > len(d.GetMembers())}
	for _, m := range d.GetMembers() {
		row := heatRow{Member: m.GetMemberId(), Total: m.GetAssigned()}
		counts := m.GetAssignedByTopic()
		for i := range topics {
			var n int32
			if i < len(counts) {
				n = counts[i]
			}
			// Ten steps of blue; a zero cell stays white.
			alpha := 0.0
			if n > 0 {
				alpha = 0.1 + 0.8*float64(n)/float64(peak)
			}
			row.Cells = append(row.Cells, heatCell{Count: n, Style: template.CSS(fmt.Sprintf("background-color: rgba(59, 111, 182, %.1f)", alpha))})
		}
		h.Rows = append(h.Rows, row)
	}
	return h, true
}
