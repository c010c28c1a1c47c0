package client

import (
	"runtime/debug"
	"sync"
)

// modulePath is this module's path, as build info names it.
const modulePath = "github.com/assignd/assignd"

// userAgent is what the client sends as its gRPC user agent,
// "assignd-go/<module version>" (grpc-go appends its own), so that
// assignd's group history shows which client software led each
// rebalance. The version is "devel" in a build of this module itself or
// when the build carries no module information. A user agent given
// through WithDialOptions(grpc.WithUserAgent(...)) replaces it.
var userAgent = sync.OnceValue(func() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == modulePath && d.Version != "" {
				v = d.Version
			}
		}
	}
	return "assignd-go/" + v
})
