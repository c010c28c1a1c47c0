package policy

import (
	"crypto/sha256"
	"encoding/binary"
)

// Buckets is the number of rollout buckets; a rule's percentage is applied
// in hundredths of a percent, so "percent: 0.25" is 25 buckets.
const Buckets = 10000

// Bucket returns the rollout bucket of a group, in [0, Buckets): the first
// eight bytes of SHA-256(salt + "\x00" + groupID), read big-endian, modulo
// Buckets. A rule with percent P applies to the groups whose bucket is
// below P×100.
//
// It depends on nothing but its arguments, so every replica, every restart
// and every language computes the same bucket (an operator can check one
// with `printf 'salt\0group' | sha256sum`: the bucket is the first 16 hex
// digits as a number, mod 10000). Because a rule applies below a threshold,
// raising its percentage only ever adds groups. The salt is the rule's
// rollout.salt, empty by default, so that without salts a group has one
// bucket in every rule: the same groups go first in every rollout, which
// makes canaries predictable; a salt decorrelates one rule from the others.
// SHA-256 rather than a faster hash because its output is uniform for the
// short, similar ids groups have, and it is available everywhere.
func Bucket(salt, groupID string) int {
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write([]byte{0})
	h.Write([]byte(groupID))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return int(binary.BigEndian.Uint64(sum[:8]) % Buckets)
}
