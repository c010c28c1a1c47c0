package history

import (
	"slices"
	"time"
)

// A group "used to call" when its remembered calls form a rhythm, and it
// is silent when that rhythm broke. Kafka groups call their assignor only
// when they rebalance, so a quiet group is usually just a stable one;
// silence means something only against the group's own history.
//
// Calls closer together than EpisodeGap are one episode (a rolling
// restart: each member's leave and join, and their cooperative
// follow-ups). A group whose last StormCap calls hold at least
// SilentMinEpisodes episodes has shown its rhythm: the longest interval
// between the starts of two consecutive episodes. It is silent once it
// has not called for SilentFactor times that interval, and at least
// SilentFloor. A consumer group of an hourly job is silent after three
// hours without a call; one that rebalanced on deployments every few days
// only after three times its longest pause between deployments.
const (
	EpisodeGap        = 10 * time.Minute
	SilentMinEpisodes = 3
	SilentFactor      = 3
	SilentFloor       = time.Hour
)

// SilentGroups counts the remembered groups that used to call and have
// been silent for longer than their rhythm allows (see [SilentFactor]).
// It walks every group: meant for metrics collection, not a hot path.
func (s *Store) SilentGroups() int {
	now := s.cfg.now().UnixNano()
	var times [StormCap]int64
	n := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.groups {
		ts := append(times[:0], g.times...)
		if silent(ts, now) {
			n++
		}
	}
	return n
}

// silent applies the rule to one group's call times (Unix nanoseconds,
// zero for an unused slot of the ring, in any order); ts is sorted in
// place.
func silent(ts []int64, now int64) bool {
	slices.Sort(ts)
	episodes, longest := 0, int64(0)
	var start, last int64
	for _, t := range ts {
		if t == 0 {
			continue
		}
		if episodes == 0 || t-last > int64(EpisodeGap) {
			if episodes > 0 {
				longest = max(longest, t-start)
			}
			episodes++
			start = t
		}
		last = t
	}
	if episodes < SilentMinEpisodes {
		return false
	}
	return now-last > max(SilentFactor*longest, int64(SilentFloor))
}
