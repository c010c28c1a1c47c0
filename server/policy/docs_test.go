package policy

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/assignd/assignd/testbed/doctable"
)

// docsPolicy is the page whose first yaml block shows every field of a
// policy file.
var docsPolicy = filepath.Join("..", "..", "docs", "policy.md")

// TestDocsShowEveryPolicyKey reads the policy file that docs/policy.md
// shows and walks it beside the schema ([fileSpec] and the types under
// it): every key the page shows must be a field of the section it stands
// in, and every field of every section must be shown at least once. A key
// added to the schema, renamed or removed without the page fails here.
func TestDocsShowEveryPolicyKey(t *testing.T) {
	block, err := doctable.Block(docsPolicy, "", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatalf("%s: the yaml block does not parse: %v", docsPolicy, err)
	}
	shown := map[string]bool{}
	for _, p := range walkDocKeys(t, doc.Content[0], reflect.TypeFor[fileSpec](), "", shown) {
		t.Errorf("%s shows %s, which the policy schema does not have", docsPolicy, p)
	}
	for _, k := range schemaKeys(reflect.TypeFor[fileSpec](), map[reflect.Type]bool{}) {
		if !shown[k] {
			t.Errorf("the policy schema has %s, which %s does not show", k, docsPolicy)
		}
	}
}

// schemaKeys lists "section.key" for every yaml field of t and the struct
// types under it, each section once.
func schemaKeys(t reflect.Type, seen map[reflect.Type]bool) []string {
	t = structOf(t)
	if t == nil || seen[t] {
		return nil
	}
	seen[t] = true
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if tag := yamlKey(f); tag != "" {
			keys = append(keys, t.Name()+"."+tag)
			keys = append(keys, schemaKeys(f.Type, seen)...)
		}
	}
	return keys
}

// walkDocKeys walks a node of the shown file as a value of type t,
// marks "section.key" in shown for each key it finds, and returns the
// paths of the keys t does not have.
func walkDocKeys(t *testing.T, n *yaml.Node, typ reflect.Type, path string, shown map[string]bool) []string {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var unknown []string
	switch typ.Kind() {
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, e := range n.Content {
				unknown = append(unknown, walkDocKeys(t, e, typ.Elem(), path+"[]", shown)...)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				unknown = append(unknown, walkDocKeys(t, n.Content[i+1], typ.Elem(), path+"."+n.Content[i].Value, shown)...)
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := map[string]reflect.Type{}
		for i := range typ.NumField() {
			if k := yamlKey(typ.Field(i)); k != "" {
				fields[k] = typ.Field(i).Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			ft, ok := fields[k]
			if !ok {
				unknown = append(unknown, strings.TrimPrefix(path+"."+k, "."))
				continue
			}
			shown[typ.Name()+"."+k] = true
			unknown = append(unknown, walkDocKeys(t, n.Content[i+1], ft, path+"."+k, shown)...)
		}
	}
	return unknown
}

func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func yamlKey(f reflect.StructField) string {
	k, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if k == "-" {
		return ""
	}
	return k
}
