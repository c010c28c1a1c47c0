package kafkalog

import (
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/internal/clip"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// gapGroups is how many group ids a gap record names.
const gapGroups = 64

// pending is a gap not shared yet: the records dropped since the last
// gap was shared.
type pending struct {
	dropped     int64
	first, last time.Time
	reason      string
	groups      map[string]bool
	truncated   bool
}

func (p *pending) add(group string, now time.Time, reason string) {
	if p.dropped == 0 {
		p.first = now
	}
	p.dropped++
	p.last = now
	p.reason = reason
	p.addGroup(group)
}

func (p *pending) addGroup(group string) {
	if p.groups == nil {
		p.groups = make(map[string]bool)
	}
	switch {
	case p.groups[group]:
	case len(p.groups) < gapGroups:
		p.groups[group] = true
	default:
		p.truncated = true
	}
}

// record is the gap as a HistoryGap, without its replica and sequence.
func (p *pending) record() *assigndv1.HistoryGap {
	g := &assigndv1.HistoryGap{
		Dropped: p.dropped, FirstDropped: timestamppb.New(p.first), LastDropped: timestamppb.New(p.last),
		Reason: clip.String(p.reason, 512), GroupsTruncated: p.truncated,
	}
	for k := range p.groups {
		g.Groups = append(g.Groups, k)
	}
	slices.Sort(g.Groups)
	return g
}

// merge adds back a gap that could not be shared.
func (p *pending) merge(g *assigndv1.HistoryGap) {
	first, last := g.GetFirstDropped().AsTime(), g.GetLastDropped().AsTime()
	if p.dropped == 0 || first.Before(p.first) {
		p.first = first
	}
	if last.After(p.last) {
		p.last = last
	}
	if p.reason == "" {
		p.reason = g.GetReason()
	}
	p.dropped += g.GetDropped()
	for _, k := range g.GetGroups() {
		p.addGroup(k)
	}
	p.truncated = p.truncated || g.GetGroupsTruncated()
}
