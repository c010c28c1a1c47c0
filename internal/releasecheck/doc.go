// Package gate decides whether a consumer release may proceed, from the
// decisions assignd recorded for the group while the release rolled out.
//
// A cooperative rollout (KIP-429) is safe when four things hold, and
// [Evaluate] checks each from the group's decision records alone:
//
//   - the group kept negotiating the expected protocol, and never ran an
//     eager rebalance, where every member revokes everything;
//   - every follow-up chain completed: a round that withheld partitions
//     was followed, within a bound, by a round that withheld none;
//   - no partition stayed unowned too long: from the round that revoked or
//     withheld it to the first later round that hands it out;
//   - the group kept calling assignd: a decision came within a bound of
//     the start, and no generation was formed without assignd (a gap in
//     the generation ids means the leader fell back to its own assignor).
//
// [Evaluate] is pure: it takes the decisions and the times, and says what
// failed and whether anything is still open (a chain or an unowned
// partition that may yet resolve within its bound). [Watch] polls a
// group's history for a window and evaluates what it has seen after every
// poll; `assignctl release-check` is its command line.
package releasecheck
