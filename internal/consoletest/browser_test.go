package consoletest

import "testing"

func browse(t *testing.T, f fleet) {}
