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

// Info is the build of the running binary.
type Info struct {
	// Version is the stamped version, else the module version `go install
	// ...@vX` records, else "devel".
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
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
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

// String is the line `assignd --version` prints after the program name.
func (i Info) String() string {
	return i.Version + " (revision " + i.Revision + ", " + i.Go + ")"
}
