package versioned

import (
	"slices"
	"testing"
)

type fake struct {
	name    string
	version int
}

func (f fake) Name() string { return f.name }
func (f fake) Version() int { return f.version }

func TestRegistry(t *testing.T) {
	r := NewRegistry(fake{"b", 1}, fake{"a", 2}, fake{"a", 1})
	var refs []string
	for _, a := range r.All() {
		refs = append(refs, Ref(a))
	}
	if want := []string{"a@1", "a@2", "b@1"}; !slices.Equal(refs, want) {
		t.Errorf("All: %v, want %v", refs, want)
	}
	tests := []struct {
		name    string
		version int
		want    string // "" when absent
	}{
		{"a", 0, "a@1"}, // version 0 is 1
		{"a", 2, "a@2"},
		{"a", 3, ""},
		{"c", 1, ""},
	}
	for _, tt := range tests {
		got := ""
		if a, ok := r.Lookup(tt.name, tt.version); ok {
			got = Ref(a)
		}
		if got != tt.want {
			t.Errorf("Lookup(%q, %d) = %q, want %q", tt.name, tt.version, got, tt.want)
		}
	}
	r.All()[0] = fake{"z", 9}
	if a, _ := r.Lookup("a", 1); Ref(a) != "a@1" {
		t.Errorf("All returned the registry's own slice")
	}
}
