package history

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Query filters and pages List; the filters combine with AND.
type Query struct {
	// Signal keeps the groups where it holds; unspecified keeps all.
	Signal assigndv1.GroupSignal
	// Assignor keeps the groups whose latest assignor is this
	// "name@version", or this name at any version.
	Assignor string
	// Rule keeps the groups whose latest policy rule is this one.
	Rule string
	// Prefix keeps the group ids that start with it.
	Prefix string
	// PageSize: at most this many groups (0: DefaultPageSize, at most
	// MaxPageSize).
	PageSize int
	// PageToken is the previous page's next token; "" for the first page.
	PageToken string
}

// DefaultPageSize and MaxPageSize bound a List page.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// Page is one page of List.
type Page struct {
	Groups []*assigndv1.GroupSummary
	// Next is the token of the next page, "" on the last one.
	Next string
	// Total is how many groups the store remembers, before filtering.
	Total int
}

// ErrPageToken: a Query's PageToken is not one List returned.
var ErrPageToken = errors.New("history: invalid page token")

// List returns the groups matching q, sorted by group id, one page.
func (s *Store) List(q Query) (Page, error) {
	after := ""
	if q.PageToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(q.PageToken)
		if err != nil || len(b) == 0 {
			return Page{}, ErrPageToken
		}
		after = string(b)
	}
	size := q.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	size = min(size, MaxPageSize)

	s.mu.Lock()
	total := len(s.groups)
	snaps := make([]snapshot, 0, min(total, 4*size))
	for id, g := range s.groups {
		if id <= after && q.PageToken != "" || !strings.HasPrefix(id, q.Prefix) || !matches(g.latest(), q) {
			continue
		}
		snaps = append(snaps, g.snapshot())
	}
	s.mu.Unlock()

	slices.SortFunc(snaps, func(a, b snapshot) int { return strings.Compare(a.id, b.id) })
	now := s.cfg.now()
	p := Page{Total: total}
	for i := range snaps {
		sum := summary(&snaps[i], s.cfg.thresholds, now)
		if q.Signal != assigndv1.GroupSignal_GROUP_SIGNAL_UNSPECIFIED && !has(sum.GetSignals(), q.Signal) {
			continue
		}
		if len(p.Groups) == size {
			p.Next = base64.RawURLEncoding.EncodeToString([]byte(p.Groups[size-1].GetGroupId()))
			break
		}
		p.Groups = append(p.Groups, sum)
	}
	return p, nil
}

func matches(d *assigndv1.Decision, q Query) bool {
	if d == nil {
		return false
	}
	if q.Rule != "" && d.GetPolicyRule() != q.Rule {
		return false
	}
	if a := q.Assignor; a != "" && d.GetAssignor() != a && !strings.HasPrefix(d.GetAssignor(), a+"@") {
		return false
	}
	return true
}

// Get returns a group's summary and its kept decisions, newest first (at
// most max of them; 0: all), or false when the group is not remembered.
func (s *Store) Get(id string, max int) (*assigndv1.GroupSummary, []*assigndv1.Decision, bool) {
	s.mu.Lock()
	g, ok := s.groups[id]
	ok = ok && g.n > 0
	var sn snapshot
	if ok {
		sn = g.snapshot()
	}
	s.mu.Unlock()
	if !ok {
		return nil, nil, false
	}
	ks := sn.kept
	if max > 0 && len(ks) > max {
		ks = ks[:max]
	}
	return summary(&sn, s.cfg.thresholds, s.cfg.now()), fulls(ks), true
}

func summary(sn *snapshot, t Thresholds, now time.Time) *assigndv1.GroupSummary {
	d := sn.decisions[0]
	return &assigndv1.GroupSummary{
		GroupId: sn.id, ProtocolName: d.GetProtocolName(), RebalanceProtocol: d.GetRebalanceProtocol(),
		Assignor: d.GetAssignor(), PolicyRule: d.GetPolicyRule(), GenerationId: d.GetGenerationId(),
		MemberCount: d.GetMemberCount(), Partitions: d.GetPartitions(), Imbalance: d.GetImbalance(),
		LastSeen: timestamppb.New(d.GetTime().AsTime()), DecisionsRecorded: sn.recorded,
		Signals:            signals(sn, t, now),
		RebalancesLastHour: int32(sn.rebalancesSince(now.Add(-time.Hour))),
		LongestUnowned:     durationpb.New(longestUnowned(sn.decisions).span),
		GroupType:          d.GetGroupType(),
	}
}

// Shadows returns a group's kept shadow-run records, newest first (at
// most max of them; 0: all).
func (s *Store) Shadows(id string, max int) []*assigndv1.Decision {
	s.mu.Lock()
	g := s.groups[id]
	if g == nil || g.nshad == 0 {
		s.mu.Unlock()
		return nil
	}
	ks := newestFirst(g.shadows, g.shadowHead, g.nshad)
	s.mu.Unlock()
	if max > 0 && len(ks) > max {
		ks = ks[:max]
	}
	return fulls(ks)
}

// SignalCounts counts the groups where each signal holds now, and returns
// the number of groups remembered. It derives every group's signals: meant
// for metrics collection, not for a hot path.
func (s *Store) SignalCounts() (map[assigndv1.GroupSignal]int, int) {
	s.mu.Lock()
	snaps := make([]snapshot, 0, len(s.groups))
	for _, g := range s.groups {
		if g.n > 0 {
			snaps = append(snaps, g.snapshot())
		}
	}
	s.mu.Unlock()
	now := s.cfg.now()
	counts := make(map[assigndv1.GroupSignal]int)
	for i := range snaps {
		for _, f := range signals(&snaps[i], s.cfg.thresholds, now) {
			counts[f.GetSignal()]++
		}
	}
	return counts, len(snaps)
}
