// Package buildinfo says which build of assignd is running: the version
// and VCS revision, stamped at link time by release builds and the
// container image, or read from the Go build info otherwise.
//
// Stamping (the Containerfile does this):
//
//	go build -ldflags "-X github.com/assignd/assignd/internal/buildinfo.version=v1.2.3 \
//	  -X github.com/assignd/assignd/internal/buildinfo.revision=$(git rev-parse HEAD)" ./cmd/assignd
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Set with -ldflags -X; empty when the build did not stamp them.
var (
	version  string
	revision string
)

// modulePath is this module's path, as Go build info names it.
const modulePath = "github.com/assignd/assignd"

// Info is the build of the running binary.
type Info struct {
	// Version is the stamped version, else the version of this module that
	// the build info records (the main module's after `go install ...@vX`,
	// or a dependency's when a program imports the client), else "devel".
	Version string
	// Revision is the stamped VCS revision, else vcs.revision from the Go
	// build info (builds in a git checkout without -buildvcs=false), else
	// "unknown".
	Revision string
	// Go is the Go release the binary was built with.
	Go string
}

// Read returns the build of the running binary.
func Read() Info {
	return read(version, revision, debug.ReadBuildInfo)
}

func read(version, revision string, buildInfo func() (*debug.BuildInfo, bool)) Info {
	info := Info{Version: version, Revision: revision, Go: runtime.Version()}
	if bi, ok := buildInfo(); ok {
		if info.Version == "" {
			info.Version = moduleVersion(bi)
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && info.Revision == "" {
				info.Revision = s.Value
			}
		}
		if bi.GoVersion != "" {
			info.Go = bi.GoVersion
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Revision == "" {
		info.Revision = "unknown"
	}
	return info
}

// moduleVersion is the version of this module recorded in bi, or "".
func moduleVersion(bi *debug.BuildInfo) string {
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m != nil && m.Path == modulePath && m.Version != "" && m.Version != "(devel)" {
			return m.Version
		}
	}
	return ""
}

// String is the line `assignd --version` prints after the program name.
func (i Info) String() string {
	return i.Version + " (revision " + i.Revision + ", " + i.Go + ")"
}
