//go:build race

package history

// raceEnabled: the race detector pads allocations, so heap sizes differ
// from a normal build's.
const raceEnabled = true
