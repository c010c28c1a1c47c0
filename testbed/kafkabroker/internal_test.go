package kafkabroker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestClusterIDNeverAFlag: StorageTool reads an argument starting with
// '-' as a flag; about one random id in 32 would.
func TestClusterIDNeverAFlag(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		if len(id) != 22 || strings.HasPrefix(id, "-") || strings.HasPrefix(id, "_") {
			t.Fatalf("cluster id %q", id)
		}
		seen[id] = true
	}
	if len(seen) != 2000 {
		t.Errorf("%d distinct ids out of 2000", len(seen))
	}
}

// TestDecodeRequest decodes frames as franz-go writes them: header v1
// (an old version) and v2 with tagged fields (a flexible one).
func TestDecodeRequest(t *testing.T) {
	sync4 := kmsg.NewPtrSyncGroupRequest()
	sync4.Group, sync4.Generation, sync4.MemberID = "g", 7, "m1"
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = "m1", []byte{1, 2, 3}
	sync4.GroupAssignment = append(sync4.GroupAssignment, a)
	sync4.SetVersion(4) // flexible
	sync2 := *sync4
	sync2.SetVersion(2) // not flexible
	join := kmsg.NewPtrJoinGroupRequest()
	join.Group, join.ProtocolType = "g", "consumer"
	join.SetVersion(9)
	for _, tc := range []struct {
		name string
		req  kmsg.Request
		cid  *string
	}{
		{"sync v4", sync4, kmsg.StringPtr("c1")},
		{"sync v2", &sync2, kmsg.StringPtr("c2")},
		{"join v9, null client id", join, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *kmsg.RequestFormatter
			if tc.cid != nil {
				f = kmsg.NewRequestFormatter(kmsg.FormatterClientID(*tc.cid))
			} else {
				f = kmsg.NewRequestFormatter()
			}
			frame := f.AppendRequest(nil, tc.req, 42)
			got, ok := decodeRequest(frame[4:])
			if !ok {
				t.Fatal("not decoded")
			}
			if want := ""; tc.cid == nil && got.ClientID != want || tc.cid != nil && got.ClientID != *tc.cid {
				t.Errorf("client id %q", got.ClientID)
			}
			if got.Body.Key() != tc.req.Key() || got.Body.GetVersion() != tc.req.GetVersion() {
				t.Fatalf("decoded key %d v%d", got.Body.Key(), got.Body.GetVersion())
			}
			if string(got.Body.AppendTo(nil)) != string(tc.req.AppendTo(nil)) {
				t.Error("the body decodes differently")
			}
		})
	}
	if _, ok := decodeRequest([]byte{0, 1}); ok {
		t.Error("a truncated frame decoded")
	}
}

// TestObserveNeedsTap: without WithTap there is no proxy to observe
// through (clients bootstrap from the broker itself).
func TestObserveNeedsTap(t *testing.T) {
	var b Broker // as Start leaves it without WithTap: no tap
	if _, err := b.Observe(func(Request) {}); err == nil || !strings.Contains(err.Error(), "WithTap") {
		t.Errorf("Observe without a tap: %v", err)
	}
}

// The broker's jars come first; a directory stands for its jars, a jar for
// itself; a missing entry is an error rather than a plugin silently absent.
func TestClasspath(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "plugin.jar")
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"none", nil, "/lib/*"},
		{"jar and directory", []string{jar, dir}, "/lib/*" + sep + jar + sep + filepath.Join(dir, "*")},
	} {
		got, err := classpath("/lib", tc.extra)
		if err != nil || got != tc.want {
			t.Errorf("%s: classpath = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := classpath("/lib", []string{filepath.Join(dir, "missing.jar")}); err == nil {
		t.Error("a missing entry: no error")
	}
}
