// Package contains checks that a text a test reads (a command's output, a
// page, a metrics scrape) has every piece the test expects, and shows the
// whole text when one is missing.
package contains

import (
	"strings"
	"testing"
)

// All marks t failed, and goes on, for each piece of want that text lacks;
// what names the text in the message.
func All(t testing.TB, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
