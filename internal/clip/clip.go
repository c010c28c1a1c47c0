// Package clip shortens strings a caller supplied before they are echoed
// in messages or written to logs, so that a megabyte group id makes a
// short line.
package clip

import "unicode/utf8"

// Short is the length the servers clip caller-chosen names to (group ids,
// member ids, topic names).
const Short = 128

// String returns s cut to at most n bytes, never inside a character (the
// result stays valid UTF-8 when s is), with "..." appended when cut.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
