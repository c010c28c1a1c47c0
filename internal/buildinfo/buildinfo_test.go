package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestRead(t *testing.T) {
	withVCS := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: modulePath, Version: "v0.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	devel := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: modulePath, Version: "(devel)"}}
	asDependency := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "example.com/app", Version: "v9.0.0"},
		Deps: []*debug.Module{{Path: "example.com/other", Version: "v1.0.0"}, {Path: modulePath, Version: "v0.5.1"}}}
	tests := []struct {
		name              string
		version, revision string
		bi                *debug.BuildInfo
		want              Info
	}{
		{"stamped wins", "v1.2.3", "fff", withVCS, Info{"v1.2.3", "fff", "go1.99"}},
		{"go install @version", "", "", withVCS, Info{"v0.4.0", "abc123", "go1.99"}},
		{"local build", "", "", devel, Info{"devel", "unknown", "go1.99"}},
		{"a program that imports the client", "", "", asDependency, Info{"v0.5.1", "unknown", "go1.99"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.version, tc.revision, func() (*debug.BuildInfo, bool) { return tc.bi, true })
			if got != tc.want {
				t.Errorf("read = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := read("", "", func() (*debug.BuildInfo, bool) { return nil, false }); got.Version != "devel" || got.Revision != "unknown" || got.Go == "" {
		t.Errorf("without build info: %+v", got)
	}
}
