// Package doctable reads the reference tables and examples of the
// Markdown pages under docs/, so that a test in the package that knows a
// fact (the error reasons, the policy keys, the metrics) can fail when
// the page that documents it drifts from the code.
package doctable

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Table returns the rows of the tables under the heading (the heading's
// text, without the #s) of a Markdown file, up to the next heading of its
// level: one slice of cells a row, cells trimmed, each table's header row
// and |---| line left out.
func Table(file, heading string) ([][]string, error) {
	lines, err := section(file, heading)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	in := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			in = false
			continue
		}
		if !in {
			in = true // a table's header row
			continue
		}
		cells := splitRow(l)
		if slices.IndexFunc(cells, func(c string) bool { return strings.Trim(c, "-: ") != "" }) < 0 {
			continue // the |---| line
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table under %q", file, heading)
	}
	return rows, nil
}

// splitRow splits a table row at the | that are not escaped (\|) and not
// inside `code`.
func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// Block returns the first fenced code block of the given language
// (```yaml) under the heading ("" for the whole file).
func Block(file, heading, lang string) (string, error) {
	lines, err := section(file, heading)
	if err != nil {
		return "", err
	}
	start := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "```"+lang })
	if start < 0 {
		return "", fmt.Errorf("%s: no ```%s block under %q", file, lang, heading)
	}
	end := slices.IndexFunc(lines[start+1:], func(l string) bool { return strings.TrimSpace(l) == "```" })
	if end < 0 {
		return "", fmt.Errorf("%s: the ```%s block under %q does not end", file, lang, heading)
	}
	return strings.Join(lines[start+1:start+1+end], "\n"), nil
}

// Code returns the `code spans` of a cell (or any text), in order.
func Code(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+2+j:]
	}
}

// section returns the lines after the heading up to the next heading of
// the same or a higher level; the whole file when heading is "".
func section(file, heading string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	if heading == "" {
		return lines, nil
	}
	// level is a heading's level, 0 for any other line and for the lines
	// of fenced code (a shell comment is not a heading).
	fence := false
	levels := make([]int, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, "#")); !fence && n > 0 && strings.HasPrefix(l[n:], " ") {
			levels[i] = n
		}
	}
	for i, l := range lines {
		if levels[i] == 0 || strings.TrimSpace(l[levels[i]:]) != heading {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if levels[j] > 0 && levels[j] <= levels[i] {
				end = j
				break
			}
		}
		return lines[i+1 : end], nil
	}
	return nil, fmt.Errorf("%s: no heading %q", file, heading)
}
