// Package history is the group observatory's memory: the last decisions of
// each consumer group an assignd replica served, bounded in decisions per
// group and in groups (the least recently seen group is evicted), and the
// signals derived from them (rebalance storms, generation gaps, protocol
// migrations stuck or regressed, follow-ups that never came, imbalance).
//
// [Store.Record] is on the Assign path: it takes the store's lock for a
// constant amount of work and never fails. Reads copy what they need under
// the lock and derive the signals outside it.
package history
