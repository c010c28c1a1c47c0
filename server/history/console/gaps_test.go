package console_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/console"
	"github.com/assignd/assignd/testbed/contains"
)

// TestFleetGaps checks that the fleet page lists the replicas' history
// gaps, as ListGroups returns them, and leaves the section out when no
// replica dropped a record.
func TestFleetGaps(t *testing.T) {
	first := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	gap := func(replica string, inc, seq uint64, dropped int64, reason string, truncated bool, groups ...string) *assigndv1.HistoryRecord {
		return &assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: &assigndv1.HistoryGap{
			Replica: replica, Incarnation: inc, Sequence: seq, Dropped: dropped, Reason: reason,
			FirstDropped: timestamppb.New(first), LastDropped: timestamppb.New(first.Add(time.Duration(seq) * time.Minute)),
			Groups: groups, GroupsTruncated: truncated,
		}}}
	}
	decision := func(replica string, inc uint64) *assigndv1.HistoryRecord {
		return &assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: &assigndv1.Decision{
			Time: timestamppb.New(first), GroupId: "billing", GenerationId: 1, Replica: replica, Incarnation: inc, Sequence: 1,
		}}}
	}
	for _, tc := range []struct {
		name    string
		records []*assigndv1.HistoryRecord
		want    []string // in the page; nil: no gaps section at all
	}{
		{name: "no replica known"},
		{name: "replicas without gaps", records: []*assigndv1.HistoryRecord{decision("pod-b", 0xb2)}},
		{
			name: "gaps of two replicas",
			records: []*assigndv1.HistoryRecord{
				decision("pod-b", 0xb2),
				gap("pod-b", 0xb2, 2, 5, "buffer full", false, "billing", "pay<eu>"),
				gap("pod-b", 0xb2, 3, 2, "NOT_ENOUGH_REPLICAS", true, "orders"),
				gap("pod-c", 0xc3, 1, 7, "buffer full", false),
			},
			want: []string{
				"<h2>History gaps</h2>",
				`<tr data-replica="pod-b">`,
				"<td><code>b2</code></td>",
				`<td class="n">5</td>`, `<td class="n">2</td>`,
				"<td>2026-12-02T04:00:00Z</td>", "<td>2026-12-02T04:03:00Z</td>",
				"<td>buffer full</td>", "<td>NOT_ENOUGH_REPLICAS</td>",
				`<a href="group?id=billing">billing</a>, <a href="group?id=pay%3Ceu%3E">pay&lt;eu&gt;</a>`, // escaped
				`<a href="group?id=orders">orders</a> and more</td>`,                                       // capped at 64 groups
				`<td colspan="2">pod-b in all</td><td class="n">7</td>`,
				`<td>pod-c</td>`, `<td colspan="2">pod-c in all</td><td class="n">7</td>`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := history.New(history.WithReplica("pod-a"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.records {
				h.Apply(r)
			}
			srv := httptest.NewServer(console.Handler(h))
			defer srv.Close()
			page := getOK(t, srv.URL, "/", "fleet page")
			if tc.want == nil {
				if strings.Contains(page, "History gaps") || strings.Contains(page, `id="gaps"`) {
					t.Errorf("fleet page shows gaps though no replica dropped a record:\n%s", page)
				}
				return
			}
			contains.All(t, "fleet page", page, tc.want...)
			// Newest gap first within a run, as ListGroups orders them.
			if newer, older := strings.Index(page, "NOT_ENOUGH_REPLICAS"), strings.Index(page, "<td>buffer full</td>"); newer < 0 || older < newer {
				t.Errorf("gaps are not listed newest first (newer at %d, older at %d)", newer, older)
			}
		})
	}
}
