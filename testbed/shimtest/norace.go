//go:build !race

package shimtest

// RaceDetector is true in builds with the race detector (go test -race).
const RaceDetector = false
