package policy

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a policy file. Real policies are a few kilobytes; the
// bound keeps a wrong path (a log file, a device) from being read whole.
const MaxFileSize = 1 << 20

// EmbeddedFile is the name under which Default's file is parsed.
const EmbeddedFile = "<embedded>"

//go:embed default.yaml
var defaultYAML []byte

// defaultPolicy and defaultRuleSpec come from default.yaml: the whole
// built-in policy, and its one rule that ends every other policy.
var defaultPolicy, defaultRuleSpec = mustParseDefault()

func mustParseDefault() (*Policy, ruleSpec) {
	f, err := decode(defaultYAML, &problems{file: EmbeddedFile})
	if err != nil || len(f.Rules) != 1 || f.Rules[0].Name != DefaultRule {
		panic(fmt.Sprintf("policy: the embedded default policy must have exactly the default rule (%v)", err))
	}
	p, err := parse(EmbeddedFile, defaultYAML, nil)
	if err != nil {
		panic("policy: the embedded default policy is invalid: " + err.Error())
	}
	return p, f.Rules[0]
}

// Default returns the built-in policy, which maps each standard protocol
// name to its standard assignor; assignd serves it without --policy.
func Default() *Policy { return defaultPolicy }

// DefaultYAML returns the built-in policy's file, e.g. as a starting point
// for one's own.
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// Load reads and parses a policy file. See Parse.
func Load(path string) (*Policy, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Check reports whether the file at path is a valid policy, for `assignctl
// policy check FILE`: nil, or every problem found (see Error).
func Check(path string) error {
	_, err := Load(path)
	return err
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading policy %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxFileSize)}
	}
	return data, nil
}

// Parse validates a policy file's content completely and compiles it. file
// names it in errors. Every problem is reported, each an *Error wrapping
// ErrInvalidPolicy: YAML syntax, unknown fields (with their line),
// a missing or unsupported version, rules without a name or with a
// duplicate one, unknown assignors or versions, an assignor or shadow that
// cannot serve the rebalance protocols its protocol names imply, bad
// globs, percentages or parameters, include/exclude entries that the rule
// cannot match, and rules that an earlier rule makes unreachable.
func Parse(file string, data []byte) (*Policy, error) {
	return parse(file, data, &defaultRuleSpec)
}

// parse is Parse with the rule appended to files that do not end with
// their own default rule (nil only for the embedded file, which does).
func parse(file string, data []byte, fallback *ruleSpec) (*Policy, error) {
	probs := &problems{file: file}
	f, err := decode(data, probs)
	if err != nil {
		return nil, err
	}
	lines := indexLines(data)
	switch {
	case f.Version == nil:
		probs.add(0, "", "version", "missing; write \"version: %d\" first", SchemaVersion)
	case *f.Version != SchemaVersion:
		probs.add(lines.top("version"), "", "version", "%d is not supported; this assignd reads version %d", *f.Version, SchemaVersion)
	}
	sum := sha256.Sum256(data)
	c := &compiler{probs: probs, lines: lines, revision: hex.EncodeToString(sum[:6])}
	specs, fromFile := f.Rules, len(f.Rules)
	if (fromFile == 0 || specs[fromFile-1].Name != DefaultRule) && fallback != nil {
		specs = append(specs, *fallback)
	}
	c.clusters = c.compileLoadClusters(f.LoadClusters, data)
	bindings := c.compileBindings(f.Bindings)
	rules := c.compileRules(specs, fromFile)
	if err := probs.err(); err != nil {
		return nil, err
	}
	return &Policy{file: file, revision: c.revision, bindings: bindings, rules: rules, clusters: c.clusters}, nil
}

// decode reads the one YAML document strictly. Decoder errors become
// Errors with the line the decoder reports.
func decode(data []byte, probs *problems) (*fileSpec, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		probs.add(0, "", "", "the file is empty (a policy needs at least \"version: %d\")", SchemaVersion)
		return nil, probs.err()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f fileSpec
	if err := dec.Decode(&f); err != nil {
		addDecodeError(probs, err)
		return nil, probs.err()
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		probs.add(extra.Line, "", "", "more than one YAML document; a policy is one document")
		return nil, probs.err()
	}
	return &f, nil
}

var decodeLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
var unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)

func addDecodeError(probs *problems, err error) {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	for _, m := range msgs {
		line := 0
		if sm := decodeLine.FindStringSubmatch(m); sm != nil {
			line, _ = strconv.Atoi(sm[1])
			m = sm[2]
		}
		if sm := unknownField.FindStringSubmatch(m); sm != nil {
			m = fmt.Sprintf("unknown field %q in %s", sm[1], sm[2])
		}
		for goName, section := range sectionNames {
			m = strings.ReplaceAll(m, goName, section)
		}
		probs.add(line, "", "", "%s", strings.TrimPrefix(m, "yaml: "))
	}
}
