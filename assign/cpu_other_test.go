//go:build !unix

package assign_test

import "time"

// processCPU is the CPU time the process has used so far, or 0 if unknown.
func processCPU() time.Duration { return 0 }
