package assign

import (
	"slices"
	"testing"
	"unicode/utf16"

	"pgregory.net/rapid"
)

// javaCompare is String.compareTo spelled out: UTF-16 code units compared
// lexicographically. Go converts invalid UTF-8 to U+FFFD per bad byte, as
// compareUTF16 does.
func javaCompare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"equal", "consumer-1", "consumer-1", 0},
		{"ascii", "consumer-1", "consumer-2", -1},
		{"prefix first", "c", "consumer", -1},
		{"empty first", "", "a", -1},
		{"ascii before latin1", "z", "é", -1},
		// Go byte order says U+E000 < U+10000; Java's surrogate pair
		// (0xD800 0xDC00) sorts before 0xE000.
		{"supplementary before private use", "\U00010000", "\uE000", -1},
		{"supplementary before U+FFFD", "x\U0001F600", "x\uFFFD", -1},
		{"BMP below surrogates before supplementary", "\uD7FF", "\U00010000", -1},
		{"supplementary by code point", "\U00010000", "\U0001F600", -1},
		{"difference after a supplementary", "\U0001F600a", "\U0001F600b", -1},
		{"invalid byte is U+FFFD", "a\xff", "a\uFFFD", 0},
		{"invalid byte after supplementary", "\xff", "\U00010000", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareUTF16(tt.a, tt.b); got != tt.want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := compareUTF16(tt.b, tt.a); got != -tt.want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
			}
			if got := javaCompare(tt.a, tt.b); got != tt.want {
				t.Errorf("table disagrees with the UTF-16 model: %d", got)
			}
		})
	}
}

func TestCompareUTF16MatchesJava(t *testing.T) {
	runes := rapid.SampledFrom([]rune{'a', 'b', '0', 0x7f, 0xe9, 0x4e16, 0xD7FF, 0xE000, 0xFFEE, 0xFFFD, 0x10000, 0x1F600, 0x10FFFF})
	str := rapid.Map(rapid.SliceOfN(runes, 0, 5), func(rs []rune) string { return string(rs) })
	rapid.Check(t, func(t *rapid.T) {
		a, b := str.Draw(t, "a"), str.Draw(t, "b")
		if got, want := compareUTF16(a, b), javaCompare(a, b); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, Java order %d", a, b, got, want)
		}
	})
}

func FuzzCompareUTF16(f *testing.F) {
	f.Add("consumer-1", "consumer-10")
	f.Add("\U00010000", "\uE000")
	f.Add("a\xff\xfe", "a\uFFFD")
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := compareUTF16(a, b), javaCompare(a, b); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, Java order %d", a, b, got, want)
		}
	})
}

func TestMemberInfoOrder(t *testing.T) {
	// Members as Run holds them: sorted by member id in byte order.
	members := []*Member{
		{ID: "a-dynamic"},
		{ID: "b-static", InstanceID: "zz"},
		{ID: "c-dynamic"},
		{ID: "d-static", InstanceID: "aa"},
		{ID: "e-static-dup", InstanceID: "aa"},
		{ID: "x\U00010000"},
		{ID: "x\uE000"},
	}
	slices.SortFunc(members, func(a, b *Member) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	var got []string
	for _, i := range memberInfoOrder(members, &stopper{}) {
		got = append(got, members[i].ID)
	}
	want := []string{
		"d-static", "e-static-dup", // instance "aa", tie broken by member id
		"b-static",               // instance "zz"
		"a-dynamic", "c-dynamic", // dynamic by member id ...
		"x\U00010000", "x\uE000", // ... in UTF-16 order
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
}

func TestMemberInfoOrderIdentityFastPath(t *testing.T) {
	members := []*Member{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	if got := memberInfoOrder(members, &stopper{}); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Fatalf("got %v", got)
	}
}
