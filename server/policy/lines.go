package policy

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// lineIndex remembers where each field of a policy file is, so that
// validation errors, which are found on the decoded structs, can still
// point at a line. Paths look like "rollout.percent" or
// "match.group_globs[1]".
type lineIndex struct {
	topLevel map[string]int
	rules    []ruleLines
	bindings []ruleLines
}

// ruleLines maps the field paths of one rule to lines; "" is the rule.
type ruleLines map[string]int

// indexLines walks the YAML node tree. It never fails: a file that decoded
// has a node tree, and missing entries only cost the line number.
func indexLines(data []byte) lineIndex {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return lineIndex{}
	}
	root := doc.Content[0]
	ix := lineIndex{topLevel: make(map[string]int)}
	if root.Kind != yaml.MappingNode {
		return ix
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		ix.topLevel[k.Value] = k.Line
		if (k.Value != "rules" && k.Value != "bindings") || v.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range v.Content {
			rl := ruleLines{"": item.Line}
			walkLines(item, "", rl)
			if k.Value == "rules" {
				ix.rules = append(ix.rules, rl)
			} else {
				ix.bindings = append(ix.bindings, rl)
			}
		}
	}
	return ix
}

func walkLines(n *yaml.Node, prefix string, out ruleLines) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			out[path] = k.Line
			walkLines(v, path, out)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			path := prefix + "[" + strconv.Itoa(i) + "]"
			out[path] = item.Line
			walkLines(item, path, out)
		}
	}
}

func (ix lineIndex) top(field string) int { return ix.topLevel[field] }

// rule returns the lines of rules[i] (empty for rules not in the file).
func (ix lineIndex) rule(i int) ruleLines {
	if i < len(ix.rules) {
		return ix.rules[i]
	}
	return ruleLines{}
}

// binding returns the lines of bindings[i].
func (ix lineIndex) binding(i int) ruleLines {
	if i < len(ix.bindings) {
		return ix.bindings[i]
	}
	return ruleLines{}
}

// line returns the line of path, or of its nearest ancestor that is in the
// file (a missing field is reported where its section, or the rule, is).
func (rl ruleLines) line(path string) int {
	for {
		if l, ok := rl[path]; ok {
			return l
		}
		if path == "" {
			return 0
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			path = ""
		} else {
			path = path[:i]
		}
	}
}
